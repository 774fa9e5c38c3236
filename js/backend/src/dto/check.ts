import { ValidateService } from '@midwayjs/validate';
import { fromValidationError } from './rules';

/**
 * `value` checked by the DTO class `dto` outside a route (a draft inside a body, a batch spec the
 * executor builds): the value as the DTO reads it, or the same 400 `invalid_input` a route answers.
 */
export function checkedBy<T>(validateService: ValidateService, dto: new () => T, value: unknown): T {
  try {
    return (validateService.validate(dto, value)?.value ?? value) as T;
  } catch (err) {
    throw fromValidationError(err) ?? err;
  }
}
