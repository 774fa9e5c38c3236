import { Controller, Get } from '@midwayjs/core';
import { shellSandbox } from '../runtime/sandbox';

@Controller('/')
export class HealthController {
  /**
   * 200 once the app is listening, which is after the startup catalog sync succeeded. `shellSandbox`:
   * `bwrap` (shell tools run sandboxed), `unavailable` (they are denied) or `off` (the operator switched
   * the sandbox off: they run unconfined).
   */
  @Get('/health')
  async health() {
    return { data: { status: 'ok', shellSandbox: shellSandbox().mode } };
  }
}
