/**
 * `array[index]` for an index the caller's arithmetic guarantees: out of range is a bug, thrown as a RangeError
 * where it happens rather than read as `undefined` and carried on as NaN.
 */
export function at<T>(array: ArrayLike<T>, index: number): T {
  const value = array[index];
  if (value === undefined) throw new RangeError(`index ${index} outside [0, ${array.length})`);
  return value;
}
