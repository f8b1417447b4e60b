import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema file imports z from here so `.openapi()` metadata is available before any
// schema is built: the OpenAPI document is generated from the same schemas that validate.
extendZodWithOpenApi(z);

export { z };
