import { Body, Controller, Get, Inject, Post, Query } from '@midwayjs/core';
import { ToolPageDTO } from '../dto/page';
import { ToolInfoQueryDTO } from '../dto/query';
import { CatalogService } from '../service/catalog';
import { ToolService } from '../service/tool';

@Controller('/admin/netaclaw/tool')
export class ToolController {
  @Inject()
  toolService: ToolService;

  @Inject()
  catalogService: CatalogService;

  @Post('/page')
  async page(@Body() body: ToolPageDTO) {
    return this.toolService.page(body);
  }

  @Get('/info')
  async info(@Query() query: ToolInfoQueryDTO) {
    return this.toolService.info(query);
  }

  @Post('/update')
  async update(@Body() body: unknown) {
    return this.toolService.update(body);
  }

  @Get('/all')
  async all() {
    return this.toolService.all();
  }

  @Post('/sync')
  async sync() {
    return this.toolService.sync();
  }

  /** The merged catalog: builtin tools, then those of NETACLAW_CATALOG_FILE (manifests, catalog order). */
  @Get('/catalog')
  async catalog() {
    return this.catalogService.manifests();
  }

  @Get('/forAgent')
  async forAgent() {
    return this.toolService.forAgent();
  }
}
