import { Provide, Scope, ScopeEnum } from '@midwayjs/core';
import { DATA_DIR } from '../config/settings';
import { AdminToken, loadAdminToken } from '../http/admin-token';

@Provide()
@Scope(ScopeEnum.Singleton)
export class AdminTokenService {
  private value?: AdminToken;

  get(): AdminToken {
    if (!this.value) this.value = loadAdminToken(DATA_DIR);
    return this.value;
  }
}
