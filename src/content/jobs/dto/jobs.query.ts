import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PublicListQuery } from '../../platform/public-list';

export const EMPLOYMENT_TYPES = [
  'full_time',
  'part_time',
  'contract',
  'internship',
  'temporary',
  'volunteer',
];
export const WORKPLACE_TYPES = ['onsite', 'hybrid', 'remote'];
export const SENIORITIES = ['entry', 'junior', 'mid', 'senior', 'lead', 'executive'];

export class JobsQuery extends PublicListQuery {
  @ApiPropertyOptional({ description: 'Full-text search over title, description, location and skills' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ enum: EMPLOYMENT_TYPES })
  @IsOptional()
  @IsIn(EMPLOYMENT_TYPES, { message: `must be one of ${EMPLOYMENT_TYPES.join(', ')}` })
  employment_type?: string;

  @ApiPropertyOptional({ enum: WORKPLACE_TYPES })
  @IsOptional()
  @IsIn(WORKPLACE_TYPES, { message: `must be one of ${WORKPLACE_TYPES.join(', ')}` })
  workplace_type?: string;

  @ApiPropertyOptional({ enum: SENIORITIES })
  @IsOptional()
  @IsIn(SENIORITIES, { message: `must be one of ${SENIORITIES.join(', ')}` })
  seniority?: string;

  @ApiPropertyOptional({ description: 'Substring of the location, any case' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  location?: string;

  @ApiPropertyOptional({ description: 'Job category (any case, e.g. `engineering`)' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  category?: string;
}
