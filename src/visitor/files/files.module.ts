import { Inject, Module, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../../config/config';
import { CONFIG } from '../../config/config.module';
import { PlatformModule } from '../platform/platform.module';
import { FileLinks } from './file-links';
import { FILE_STORAGE, FileStorage } from './file-storage';
import { FileTransferRoutes } from './file-transfer.routes';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { FilesService } from './files.service';
import { LocalFileStorage } from './local-storage';
import { S3FileStorage } from './s3-storage';

/** The storage driver FILES_DRIVER names. */
export function fileStorage(config: Config): FileStorage {
  return config.files.driver === 's3'
    ? new S3FileStorage(config.files.s3)
    : new LocalFileStorage(config.files.dir, config.baseUrl, new FileLinks(config.secrets.sessionSecret));
}

/** Files (/v1/files) and the local driver's link routes (/files/{token}); deliveries attach them. */
@Module({
  imports: [PlatformModule],
  controllers: [FilesController],
  providers: [
    { provide: FILE_STORAGE, inject: [CONFIG], useFactory: fileStorage },
    FilesRepository,
    FilesService,
    FileTransferRoutes,
  ],
  exports: [FilesService],
})
export class FilesModule implements OnModuleDestroy {
  constructor(@Inject(FILE_STORAGE) private readonly storage: FileStorage) {}

  onModuleDestroy(): void {
    this.storage.close?.();
  }
}
