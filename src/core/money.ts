/** Money in the gateway's currency units, rounded to a millionth so sums of prices print clean. */
export function roundMoney(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
