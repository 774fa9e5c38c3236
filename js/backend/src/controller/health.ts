import { Controller, Get } from '@midwayjs/core';

@Controller('/')
export class HealthController {
  /** 200 once the app is listening, which is after the startup catalog sync succeeded. */
  @Get('/health')
  async health() {
    return { data: { status: 'ok' } };
  }
}
