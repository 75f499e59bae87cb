import { Module } from '@nestjs/common';
import { BlogController } from './blog.controller';
import { BlogRepository } from './blog.repository';

@Module({ controllers: [BlogController], providers: [BlogRepository] })
export class BlogModule {}
