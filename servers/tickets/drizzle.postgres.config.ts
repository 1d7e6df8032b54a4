import { defineConfig } from 'drizzle-kit';

// Tables live in the server's schema, found through search_path: drizzle-kit writes foreign keys as
// REFERENCES "public"."x"; take the "public". out of each new migration.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/postgres/schema.ts',
  out: './drizzle-postgres',
});
