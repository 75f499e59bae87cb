import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorRenderer } from '../../common/errors/error-renderer';
import { MAX_FILE_BYTES } from './file-purposes';
import { FilesService } from './files.service';
import { fastifyOf } from '../../common/http/http-host';

type LinkRequest = FastifyRequest<{ Params: { token: string } }>;

/**
 * The targets of the local driver's signed links, `PUT /files/{token}` (upload) and `GET /files/{token}`
 * (download), outside `/v1`: the link is the credential, and the body is the file's bytes, so the routes live in
 * an encapsulated Fastify plugin with its own raw-body parser (every other route keeps accepting JSON only).
 * Errors are problem details.
 */
@Injectable()
export class FileTransferRoutes implements OnModuleInit {
  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly files: FilesService,
    private readonly errors: ErrorRenderer,
  ) {}

  onModuleInit(): void {
    if (!this.files.storage.uploadsThroughService) return;
    const fastify = fastifyOf(this.adapter);
    if (!fastify) return;
    void fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (_req, body, done) =>
        done(null, body),
      );
      scope.put('/files/:token', { bodyLimit: MAX_FILE_BYTES }, (req: LinkRequest, reply) =>
        this.run(req, reply, async () => {
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          await this.files.upload(req.params.token, req.headers['content-type'], body);
          void reply.code(204).send();
        }),
      );
      scope.get('/files/:token', (req: LinkRequest, reply) =>
        this.run(req, reply, async () => {
          const file = await this.files.download(req.params.token);
          void reply
            .code(200)
            .header('content-type', file.contentType)
            .header('cache-control', 'private, no-store')
            .header(
              'content-disposition',
              file.filename
                ? `attachment; filename="${file.filename.replace(/[^\w. -]/g, '_')}"`
                : 'attachment',
            )
            .send(file.bytes);
        }),
      );
    });
  }

  private async run(req: FastifyRequest, reply: FastifyReply, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      this.errors.send(e, req, reply);
    }
  }
}
