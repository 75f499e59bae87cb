import { Injectable } from '@nestjs/common';
import { toString as qrSvg } from 'qrcode';
import { ApiError } from '../../common/errors/api-error';
import { PassesRepository, PassPageRow } from './passes.repository';
import { ACTIVE_STATUSES } from './visits.repository';
import { PassesService } from './passes.service';

/** What the pass page template (`src/pages/templates/pass.eta`) is given: nothing private. */
export interface PassPageView {
  title: string;
  organisation: string;
  site: string;
  /** The host's first name only. */
  host: string;
  /** The visit's time in the site's time zone, or null when the visit has none. */
  when: string | null;
  timeZone: string;
  testMode: boolean;
  /** The QR code of the pass token, as an inline SVG element (made by `qrcode`). */
  qr: string;
}

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? '';

function formatWhen(row: PassPageRow): string | null {
  if (!row.expected_at) return null;
  const zone = { timeZone: row.time_zone };
  const day = row.expected_at.toLocaleDateString('en-GB', { ...zone, dateStyle: 'full' });
  const time = (d: Date) => d.toLocaleTimeString('en-GB', { ...zone, timeStyle: 'short' });
  if (!row.expected_until) return `${day}, ${time(row.expected_at)}`;
  const sameDay = row.expected_until.toLocaleDateString('en-GB', { ...zone, dateStyle: 'full' }) === day;
  return sameDay
    ? `${day}, ${time(row.expected_at)} – ${time(row.expected_until)}`
    : `${day}, ${time(row.expected_at)} – ${row.expected_until.toLocaleString('en-GB', { ...zone, dateStyle: 'full', timeStyle: 'short' })}`;
}

/**
 * The page a visitor's pass link opens (`/passes/<token>`): the visit's time, site, organisation and the host's
 * first name, and a QR code of the token for the gate to scan. A token that is forged, unknown, replaced by a newer
 * pass (resend) or whose visit is over (checked out, cancelled, denied, no-show) is a plain 404 page.
 */
@Injectable()
export class PassPageService {
  constructor(
    private readonly repo: PassesRepository,
    private readonly passes: PassesService,
  ) {}

  async view(token: string): Promise<PassPageView> {
    const passId = this.passes.tokens.passIdOf(token);
    const row = passId ? await this.repo.findPassPage(passId) : null;
    if (!row || row.revoked_at || !ACTIVE_STATUSES.includes(row.status)) throw ApiError.notFound('The pass');
    return {
      title: `Visitor pass · ${row.site_name}`,
      organisation: row.organisation_name,
      site: row.site_name,
      host: firstName(row.host_name),
      when: formatWhen(row),
      timeZone: row.time_zone,
      testMode: !row.livemode,
      qr: await qrSvg(token, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
    };
  }
}
