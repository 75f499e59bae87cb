import { ApiProperty } from '@nestjs/swagger';

export class PublicEventResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ example: 'conference' }) event_type: string;
  @ApiProperty({ type: String, nullable: true }) category: string | null;
  @ApiProperty({ format: 'date-time' }) start_date: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) end_date: string | null;
  @ApiProperty({ description: 'IANA time zone', example: 'Africa/Accra' }) timezone: string;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty() is_online: boolean;
  @ApiProperty({ type: String, nullable: true }) image_url: string | null;
  @ApiProperty() is_paid: boolean;
  @ApiProperty({ example: 'GHS' }) currency: string;
  @ApiProperty({ type: [String] }) tags: string[];
  @ApiProperty() is_featured: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AgendaItemResponse {
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) starts_at: string | null;
  @ApiProperty() title: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
}

export class EventSpeakerResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true, description: 'Role or affiliation' }) title: string | null;
  @ApiProperty({ type: String, nullable: true }) photo_url: string | null;
}

export class EventSponsorResponse {
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) logo_url: string | null;
  @ApiProperty({ type: String, nullable: true }) url: string | null;
}

export class GalleryItemResponse {
  @ApiProperty() image_url: string;
  @ApiProperty({ type: String, nullable: true }) caption: string | null;
}

export class TicketTierResponse {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({
    description: 'Price in the minor unit of `currency` (original name, kept for compatibility)',
  })
  price_pesewas: number;
  @ApiProperty({
    required: false,
    description:
      'The same number as `price_pesewas`; always present. New integrations should use this field.',
  })
  price_minor: number;
  @ApiProperty() currency: string;
  @ApiProperty({ description: 'Tickets left and on sale' }) is_available: boolean;
}

export class PublicEventDetailResponse extends PublicEventResponse {
  @ApiProperty({ type: [AgendaItemResponse] }) agenda: AgendaItemResponse[];
  @ApiProperty({ type: [EventSpeakerResponse] }) speakers: EventSpeakerResponse[];
  @ApiProperty({ type: [EventSponsorResponse] }) sponsors: EventSponsorResponse[];
  @ApiProperty({ type: [GalleryItemResponse] }) gallery: GalleryItemResponse[];
  @ApiProperty({ type: [TicketTierResponse], description: 'Empty for free events' })
  ticket_tiers: TicketTierResponse[];
}
