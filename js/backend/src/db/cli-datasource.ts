/**
 * The data source for TypeORM's CLI, with the server's options and environment (DB_TYPE=mariadb or
 * mysql, DB_HOST, …): `npm run schema:log` (what the entities declare that the database lacks; nothing
 * after the migrations) and `npm run migration:generate -- src/db/migration/<Name>` (a new migration from
 * that difference). Migrations are not run from here: the server runs them at start.
 */
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './options';

export default new DataSource({ ...dataSourceOptions(), migrationsRun: false });
