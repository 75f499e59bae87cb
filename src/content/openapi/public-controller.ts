import { applyDecorators, Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { PREFIX } from '../../common/http/surface';

/**
 * Declares a /public/v1 controller: its path under the prefix and its OpenAPI tag. Its GET routes get the
 * public pipeline (key, rate limit, undocumented-parameter refusal, CORS, ETag) as route hooks when they are
 * registered: see PublicPipeline.
 */
export const PublicController = (path: string, tag: string) =>
  applyDecorators(Controller(`${PREFIX.public.slice(1)}${path ? `/${path}` : ''}`), ApiTags(tag));
