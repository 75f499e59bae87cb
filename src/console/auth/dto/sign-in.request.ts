import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';

export class SignInBody {
  @ApiProperty() @IsEmail({}, { message: 'must be an e-mail address' }) @MaxLength(320) email: string;
  @ApiProperty() @IsString() @MaxLength(1024) password: string;
}
