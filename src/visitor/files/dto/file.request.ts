import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { IsPrefixedId } from '../../../common/validation/prefixed-id';
import { FILE_PURPOSES, FilePurpose } from '../file-purposes';

export class RegisterFileBody {
  @ApiProperty({
    enum: FILE_PURPOSES,
    description: 'What the file is for; decides the accepted types and size',
  })
  @IsIn(FILE_PURPOSES, { message: `must be one of ${FILE_PURPOSES.join(', ')}` })
  purpose: FilePurpose;

  @ApiProperty({
    example: 'image/jpeg',
    description: 'Content type; the uploaded bytes must be of this type',
  })
  @IsString()
  @MaxLength(100)
  content_type: string;

  @ApiProperty({ example: 48213, description: 'Exact size of the upload in bytes' })
  @IsInt()
  @Min(1)
  size: number;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'parcel.jpg' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  filename?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "The visit the file belongs to (`visit_…`): erasing the visit's visitor deletes the file",
  })
  @IsOptional()
  @IsString()
  @IsPrefixedId('visit')
  visit_id?: string | null;
}
