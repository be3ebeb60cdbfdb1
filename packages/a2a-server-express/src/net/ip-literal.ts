// IP literal checks without `node:net` (the core runs where there is none), written as Node's own
// `isIPv4`/`isIPv6` are (a test compares them on generated input).
const V4_SEG = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const V6_SEG = '(?:[0-9a-fA-F]{1,4})';
const IPV4 = new RegExp(`^${V4}$`);
const IPV6 = new RegExp(
  '^(?:' +
    `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)|` +
    `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)|` +
    `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)|` +
    `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)|` +
    `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)|` +
    `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))` +
    ')(?:%[0-9a-zA-Z-.:]{1,})?$',
);

export const isIPv4 = (input: string): boolean => IPV4.test(input);
export const isIPv6 = (input: string): boolean => IPV6.test(input);
