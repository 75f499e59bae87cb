import { Matches } from 'class-validator';

export const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** class-validator: a local calendar date `yyyy-mm-dd` (that it exists is checked where it is used). */
export const IsLocalDate = (each = false) =>
  Matches(LOCAL_DATE, {
    each,
    message: each ? 'each must be a date yyyy-mm-dd' : 'must be a date yyyy-mm-dd',
  });

/** class-validator: a local wall-clock time `HH:mm` (`24:00` too when `endOfDay`, for the end of a window). */
export const IsLocalTime = (endOfDay = false) =>
  Matches(endOfDay ? /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/ : /^([01]\d|2[0-3]):[0-5]\d$/, {
    message: 'must be a local time HH:mm',
  });
