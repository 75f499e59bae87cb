import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scopes an app asked for when a member's request made it wait for an admin (`oauth.approval.requested_scopes`),
 * so the console's pending request says what the app wants (issue 31 page 12). Rows made before hold none.
 */
export class OAuthApprovalScopes1795392720000 implements MigrationInterface {
  name = 'OAuthApprovalScopes1795392720000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth.approval ADD COLUMN requested_scopes text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oauth.approval DROP COLUMN requested_scopes`);
  }
}
