import type { V1Input } from './v1-operations';

type Schema = Record<string, unknown>;
export type Args = Record<string, unknown>;

/** One tool: how a model sees it, and which /v1 operation (by `operationId`) each call runs with what input. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema & { type: 'object' };
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** Every operation the tool may run: it is listed only when the credential may run all of them. */
  operations: readonly string[];
  /** The operation this call runs and its input. */
  route(args: Args): { operationId: string; input: V1Input };
  /** One line of text for the answer. */
  summary(result: Record<string, unknown>, args: Args): string;
}

const str = (description: string): Schema => ({ type: 'string', description });
const id = (prefix: string, what: string): Schema => str(`${what} id (${prefix}_…)`);
const LIMIT: Schema = { type: 'integer', minimum: 1, maximum: 100, description: 'Page size (default 25)' };
const CURSOR = str('next_cursor of the previous page, for the next page');
const obj = (properties: Record<string, Schema>, required: string[] = []): ToolSpec['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const PERSON: Schema = {
  type: 'object',
  properties: {
    name: str('Full name'),
    phone: str('E.164 phone, e.g. +233244123456'),
    email: str('E-mail (optional)'),
    company: str('Company (optional)'),
  },
  required: ['name', 'phone'],
  additionalProperties: false,
};

/** Picks the named arguments that are given. */
function pick(args: Args, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (args[n] !== undefined) out[n] = args[n];
  return out;
}

const count = (r: Record<string, unknown>) => (Array.isArray(r.data) ? r.data.length : 0);
const more = (r: Record<string, unknown>) => (r.has_more ? '; more with next_cursor' : '');

const VISIT_ACTIONS = {
  check_in: 'checkInVisit',
  check_out: 'checkOutVisit',
  approve: 'approveVisit',
  deny: 'denyVisit',
  cancel: 'cancelVisit',
  resend_pass: 'resendVisitPass',
} as const;
const BOOKING_DECISIONS = {
  confirm: 'confirmBooking',
  decline: 'declineBooking',
  cancel: 'cancelBooking',
} as const;

/**
 * The tools of `{BASE_URL}/mcp`. Each is a /v1 operation (or a few of one resource) in a model's words: same
 * services, same checks, same answer. Not tools (docs/decisions.md): erasing a visitor, starting or closing a roll
 * call, watchlist changes.
 */
export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'list_sites',
    title: 'List sites',
    description: "The organisation's sites (buildings, offices) with their ids and time zones.",
    inputSchema: obj({ limit: LIMIT, cursor: CURSOR }),
    annotations: READ,
    operations: ['listSites'],
    route: (a) => ({ operationId: 'listSites', input: { query: pick(a, ['limit', 'cursor']) } }),
    summary: (r) => `${count(r)} sites${more(r)}.`,
  },
  {
    name: 'search_people',
    title: 'Search people',
    description:
      'Staff and hosts of the organisation, by name or e-mail. Use it to find a host_id or recipient_id.',
    inputSchema: obj({
      q: str('Words of the name or e-mail (prefix match)'),
      email: str('Exact e-mail'),
      can_host: { type: 'boolean', description: 'Only people who can host visitors' },
      limit: LIMIT,
      cursor: CURSOR,
    }),
    annotations: READ,
    operations: ['listPeople'],
    route: (a) => ({
      operationId: 'listPeople',
      input: { query: pick(a, ['q', 'email', 'can_host', 'limit', 'cursor']) },
    }),
    summary: (r) => `${count(r)} people${more(r)}.`,
  },
  {
    name: 'list_visits',
    title: 'List visits',
    description: 'Visits, oldest first, filtered by status, site, host or expected time (ISO 8601).',
    inputSchema: obj({
      status: {
        type: 'string',
        enum: [
          'expected',
          'awaiting_approval',
          'checked_in',
          'checked_out',
          'cancelled',
          'denied',
          'no_show',
        ],
      },
      site_id: id('site', 'Site'),
      host_id: id('person', 'Host'),
      expected_from: str('Expected at or after (ISO 8601)'),
      expected_to: str('Expected before (ISO 8601)'),
      limit: LIMIT,
      cursor: CURSOR,
    }),
    annotations: READ,
    operations: ['listVisits'],
    route: (a) => ({
      operationId: 'listVisits',
      input: {
        query: pick(a, ['status', 'site_id', 'host_id', 'expected_from', 'expected_to', 'limit', 'cursor']),
      },
    }),
    summary: (r) => `${count(r)} visits${more(r)}.`,
  },
  {
    name: 'get_visit',
    title: 'Get a visit',
    description: 'One visit with its visitor, host, status and times.',
    inputSchema: obj({ visit_id: id('visit', 'Visit') }, ['visit_id']),
    annotations: READ,
    operations: ['getVisit'],
    route: (a) => ({ operationId: 'getVisit', input: { path: { visit_id: String(a.visit_id) } } }),
    summary: (r) => `Visit ${String(r.id)} is ${String(r.status)}.`,
  },
  {
    name: 'who_is_on_site',
    title: 'Who is on site',
    description: 'Visitors checked in now, at one site or all.',
    inputSchema: obj({ site_id: id('site', 'Site'), limit: LIMIT, cursor: CURSOR }),
    annotations: READ,
    operations: ['listVisits'],
    route: (a) => ({
      operationId: 'listVisits',
      input: { query: { ...pick(a, ['site_id', 'limit', 'cursor']), status: 'checked_in' } },
    }),
    summary: (r) => `${count(r)} visitors on site${more(r)}.`,
  },
  {
    name: 'invite_visitor',
    title: 'Invite a visitor',
    description:
      'Invites a visitor and sends them a pass (WhatsApp, SMS or e-mail). Find site_id with list_sites and host_id with search_people.',
    inputSchema: obj(
      {
        site_id: id('site', 'Site'),
        host_id: id('person', 'Host'),
        type: str('Visit type key, e.g. meeting'),
        visitor: PERSON,
        purpose: str('Purpose (optional)'),
        expected_at: str('Expected arrival (ISO 8601)'),
        expected_until: str('Expected departure (ISO 8601)'),
        custom_fields: {
          type: 'object',
          description: "Answers to the organisation's visit form, by question key",
        },
      },
      ['site_id', 'host_id', 'type', 'visitor'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    operations: ['createVisit'],
    route: (a) => ({
      operationId: 'createVisit',
      input: {
        body: pick(a, [
          'site_id',
          'host_id',
          'type',
          'visitor',
          'purpose',
          'expected_at',
          'expected_until',
          'custom_fields',
        ]),
      },
    }),
    summary: (r) => `Visit ${String(r.id)} created (${String(r.status)}); the pass is on its way.`,
  },
  {
    name: 'change_visit',
    title: 'Change a visit',
    description:
      'Check in, check out, approve, deny, cancel a visit, or resend its pass. deny and cancel cannot be undone.',
    inputSchema: obj(
      {
        visit_id: id('visit', 'Visit'),
        action: { type: 'string', enum: Object.keys(VISIT_ACTIONS) },
        reason: str('Reason (deny, cancel)'),
        decided_by: id('person', 'Approver (approve, deny)'),
      },
      ['visit_id', 'action'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    operations: Object.values(VISIT_ACTIONS),
    route: (a) => {
      const action = String(a.action) as keyof typeof VISIT_ACTIONS;
      const body =
        action === 'deny' || action === 'approve'
          ? pick(a, ['reason', 'decided_by'])
          : action === 'cancel'
            ? pick(a, ['reason'])
            : {};
      return {
        operationId: VISIT_ACTIONS[action],
        input: { path: { visit_id: String(a.visit_id) }, body },
      };
    },
    summary: (r, a) => `Visit ${String(r.id)}: ${String(a.action)} done, now ${String(r.status)}.`,
  },
  {
    name: 'find_availability',
    title: 'Find free booking slots',
    description:
      'Free slots of a booking type between two local dates (YYYY-MM-DD). Without booking_type_id, lists the booking types.',
    inputSchema: obj({
      booking_type_id: id('btype', 'Booking type'),
      from: str('First date (default today)'),
      to: str('Last date, inclusive (default from + 6 days)'),
    }),
    annotations: READ,
    operations: ['getBookingTypeAvailability', 'listBookingTypes'],
    route: (a) =>
      a.booking_type_id === undefined
        ? { operationId: 'listBookingTypes', input: { query: {} } }
        : {
            operationId: 'getBookingTypeAvailability',
            input: { path: { btype_id: String(a.booking_type_id) }, query: pick(a, ['from', 'to']) },
          },
    summary: (r) =>
      Array.isArray(r.data) ? `${count(r)} booking types${more(r)}.` : 'Free slots of the booking type.',
  },
  {
    name: 'book_slot',
    title: 'Book a slot',
    description: 'Books a free slot (start from find_availability) for an attendee.',
    inputSchema: obj(
      {
        booking_type_id: id('btype', 'Booking type'),
        start: str('Slot start (ISO 8601)'),
        attendee: PERSON,
        host_id: id('person', 'Host (default the type’s first)'),
      },
      ['booking_type_id', 'start', 'attendee'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    operations: ['createBooking'],
    route: (a) => ({
      operationId: 'createBooking',
      input: { body: pick(a, ['booking_type_id', 'start', 'attendee', 'host_id']) },
    }),
    summary: (r) => `Booking ${String(r.id)} is ${String(r.status)}.`,
  },
  {
    name: 'decide_booking',
    title: 'Decide a booking',
    description: 'Confirms, declines or cancels a booking. decline and cancel cannot be undone.',
    inputSchema: obj(
      {
        booking_id: id('booking', 'Booking'),
        decision: { type: 'string', enum: Object.keys(BOOKING_DECISIONS) },
        reason: str('Reason (decline, cancel)'),
      },
      ['booking_id', 'decision'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    operations: Object.values(BOOKING_DECISIONS),
    route: (a) => {
      const decision = String(a.decision) as keyof typeof BOOKING_DECISIONS;
      return {
        operationId: BOOKING_DECISIONS[decision],
        input: {
          path: { booking_id: String(a.booking_id) },
          body: decision === 'confirm' ? {} : pick(a, ['reason']),
        },
      };
    },
    summary: (r, a) => `Booking ${String(r.id)}: ${String(a.decision)} done, now ${String(r.status)}.`,
  },
  {
    name: 'record_delivery',
    title: 'Record a delivery',
    description: 'Records a parcel received for a person at a site; the recipient is told.',
    inputSchema: obj(
      {
        site_id: id('site', 'Site'),
        recipient_id: id('person', 'Recipient'),
        carrier: str('Carrier, e.g. DHL'),
        tracking_number: str('Tracking number'),
        description: str('What it is'),
      },
      ['site_id', 'recipient_id'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    operations: ['createDelivery'],
    route: (a) => ({
      operationId: 'createDelivery',
      input: { body: pick(a, ['site_id', 'recipient_id', 'carrier', 'tracking_number', 'description']) },
    }),
    summary: (r) => `Delivery ${String(r.id)} recorded.`,
  },
  {
    name: 'roll_call_status',
    title: 'Roll call status',
    description: 'One roll call with who is accounted for, or without rollcall_id the active roll calls.',
    inputSchema: obj({ rollcall_id: id('rollcall', 'Roll call'), site_id: id('site', 'Site') }),
    annotations: READ,
    operations: ['getRollcall', 'listRollcalls'],
    route: (a) =>
      a.rollcall_id === undefined
        ? { operationId: 'listRollcalls', input: { query: { ...pick(a, ['site_id']), status: 'active' } } }
        : { operationId: 'getRollcall', input: { path: { rollcall_id: String(a.rollcall_id) } } },
    summary: (r) =>
      Array.isArray(r.data)
        ? `${count(r)} active roll calls.`
        : `Roll call ${String(r.id)} is ${String(r.status)}.`,
  },
  {
    name: 'recent_events',
    title: 'Recent events',
    description: 'What happened lately (visit.checked_in, delivery.received, …), newest first.',
    inputSchema: obj({
      type: str('Only this event type'),
      created_after: str('Only after (ISO 8601)'),
      limit: LIMIT,
      cursor: CURSOR,
    }),
    annotations: READ,
    operations: ['listEvents'],
    route: (a) => ({
      operationId: 'listEvents',
      input: { query: pick(a, ['type', 'created_after', 'limit', 'cursor']) },
    }),
    summary: (r) => `${count(r)} events${more(r)}.`,
  },
  {
    name: 'attendance_summary',
    title: 'Attendance summary',
    description:
      'Per day: how many people were present, late, on leave or absent, between two local dates (YYYY-MM-DD, at most 31 days).',
    inputSchema: obj({ from: str('First date'), to: str('Last date, inclusive') }, ['from', 'to']),
    annotations: READ,
    operations: ['getAttendanceSummary'],
    route: (a) => ({ operationId: 'getAttendanceSummary', input: { query: pick(a, ['from', 'to']) } }),
    summary: (r) => `Attendance on ${count(r)} days.`,
  },
];
