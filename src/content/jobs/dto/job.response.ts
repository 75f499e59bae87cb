import { ApiProperty } from '@nestjs/swagger';

export class JobResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'full_time' }) employment_type: string;
  @ApiProperty({ enum: ['onsite', 'hybrid', 'remote'] }) workplace_type: string;
  @ApiProperty({ example: 'mid' }) seniority: string;
  @ApiProperty() location: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Minor unit of salary_currency; null when hidden',
  })
  salary_min_pesewas: number | null;
  @ApiProperty({ type: Number, nullable: true }) salary_max_pesewas: number | null;
  @ApiProperty() salary_currency: string;
  @ApiProperty({ example: 'month' }) salary_period: string;
  @ApiProperty() salary_hidden: boolean;
  @ApiProperty({ type: [String] }) skills: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) application_deadline: string | null;
  @ApiProperty() is_featured: boolean;
  @ApiProperty({ format: 'date-time' }) published_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class EmployerResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) logo_url: string | null;
  @ApiProperty({ type: String, nullable: true }) industry: string | null;
  @ApiProperty({ type: String, nullable: true }) location: string | null;
  @ApiProperty() is_verified: boolean;
}

export class JobDetailResponse extends JobResponse {
  @ApiProperty({ type: [String] }) responsibilities: string[];
  @ApiProperty({ type: [String] }) requirements: string[];
  @ApiProperty({ type: [String] }) benefits: string[];
  @ApiProperty({ type: EmployerResponse }) employer: EmployerResponse;
}
