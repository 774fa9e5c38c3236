/**
 * Helpers of the migrations (MySQL/MariaDB). MySQL and MariaDB cannot roll back DDL, so every step checks
 * what exists first: a migration interrupted half-way (a crash, a lost connection) is completed by the
 * next start, which runs it again.
 */
import { ColumnType, QueryRunner, Table, TableColumn, TableIndex, TableOptions } from 'typeorm';

/**
 * Whether a column of the database has the type an entity asks for, as TypeORM's schema sync compares them:
 * MariaDB stores `json` as `longtext` (with a `json_valid` check), which is the same column.
 */
function sameType(qr: QueryRunner, have: TableColumn, want: TableColumn): boolean {
  const type = qr.connection.driver.normalizeType({ type: want.type as ColumnType, length: want.length });
  return have.type === type || (type === 'json' && have.type === 'longtext');
}

/**
 * Makes a table as `options` describe it: created when missing; when it exists (made by the schema sync
 * of an earlier release), its missing columns and indexes are added, and a column whose nullability or
 * comment differs is changed in place (`ALTER TABLE … CHANGE` with its own type: the data is kept). A
 * column whose type or length differs is left as it is and reported: TypeORM changes those by dropping
 * and adding the column, which would lose its data; `npm run schema:log` shows the difference. Rows are
 * never dropped. Returns what it did, for the log.
 */
export async function ensureTable(qr: QueryRunner, options: TableOptions): Promise<string[]> {
  const want = new Table(options);
  const have = await qr.getTable(want.name);
  if (!have) {
    await qr.createTable(want, true, false, true);
    return [`created ${want.name}`];
  }
  const done: string[] = [];
  for (const column of want.columns) {
    const current = have.findColumnByName(column.name);
    const where = `${want.name}.${column.name}`;
    if (!current) {
      await qr.addColumn(have, column);
      done.push(`added ${where}`);
      continue;
    }
    if (!sameType(qr, current, column) || (current.length || '') !== (column.length || '')) {
      const show = (c: { type: string; length?: string }) => (c.length ? `${c.type}(${c.length})` : c.type);
      done.push(`left ${where} as ${show(current)} (the entity says ${show(column)}; change it by hand)`);
      continue;
    }
    const changes: string[] = [];
    if (current.isNullable !== column.isNullable) changes.push(column.isNullable ? 'NULL' : 'NOT NULL');
    if ((current.comment ?? '') !== (column.comment ?? '')) changes.push('its comment');
    if (changes.length > 0) {
      const changed = current.clone();
      changed.isNullable = column.isNullable;
      changed.comment = column.comment;
      await qr.changeColumn(have, current, changed);
      done.push(`changed ${where} to ${changes.join(' and ')}`);
    }
  }
  for (const index of want.indices) {
    if (!have.indices.some(i => i.name === index.name)) {
      await qr.createIndex(have, new TableIndex(index));
      done.push(`indexed ${want.name} (${index.columnNames.join(', ')})`);
    }
  }
  return done;
}
