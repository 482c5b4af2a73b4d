/** Money in the gateway's currency units, rounded to a millionth so sums of prices print clean. */
export function roundMoney(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Money as printed: two decimals, or as many as a small amount needs (0.0016, not 0.00). */
export function moneyText(value: number): string {
  const fixed = value.toFixed(2);
  if (value === 0 || Math.abs(value) >= 0.01) return fixed;
  return String(roundMoney(value));
}
