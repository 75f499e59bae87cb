import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Page } from '../../pages/page.decorator';
import { PassPageService, PassPageView } from './pass-page.service';

/** The visitor's pass page: `{SITE_URL}/passes/<token>`, the link a pass message carries. */
@ApiExcludeController()
@Controller('passes')
export class PassPageController {
  constructor(private readonly passes: PassPageService) {}

  @Get(':token')
  @Page('pass')
  show(@Param('token') token: string): Promise<PassPageView> {
    return this.passes.view(token);
  }
}
