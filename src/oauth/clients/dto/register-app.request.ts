import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';

export class RegisterAppBody {
  @ApiProperty({ description: 'Shown to people on the authorization page' })
  @IsString()
  @MaxLength(100)
  name: string;
  @ApiProperty({
    type: [String],
    description: 'Exact redirect URIs: https, or http to localhost / loopback addresses for development',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsString({ each: true })
  redirect_uris: string[];
  @ApiProperty({
    enum: ['confidential', 'public'],
    description: 'confidential: a server app with a secret (HTTP Basic); public: no secret, PKCE only',
  })
  @IsIn(['confidential', 'public'])
  type: string;
}
