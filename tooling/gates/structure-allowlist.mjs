// The structure gates' allowlist: every violator in packages/*/src on the day the gates were added
// (decision 0087), with its size then. A ratchet, not a licence: the gates fail on any violation not
// listed here and on a listed one that grows; a listed one that shrinks passes and is printed as
// "to fix" until it is within the limit, and one that is fixed is printed as "fixed: remove it from
// structure-allowlist.mjs". Never add an entry to let new code in; lower or delete entries as they shrink.

/**
 * Import circles: each a set of files that import each other (directly or through one another),
 * paths from the repository root. A circle whose files all lie in one set passes (it may shrink); a
 * circle reaching any other file fails. All removed (issues 32 and 33): the list is empty and must stay so.
 */
export const ALLOWED_CYCLES = [];

/**
 * Sizes, in lines: files over 500 (`path`) and functions or classes over 150 (`path › name`, the
 * name chain as the gate prints it). A class counts as one unit, like the factory closure it stands for.
 */
export const ALLOWED_SIZES = {};
