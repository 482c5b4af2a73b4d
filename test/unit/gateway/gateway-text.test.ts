import { describe, expect, it } from "vitest";
import { errorFromResponse } from "../../../src/gateway/errors.js";
import { GATEWAY_TEXT_MAX, gatewayText } from "../../../src/gateway/gateway-text.js";

describe("gateway text", () => {
  it("strips terminal escape sequences and controls, keeps the words", () => {
    const hostile =
      "bad\u001b]0;owned\u0007 prompt\u001b[31m red\u001b[0m\u009b2J<script>x</script>\u0000\r\nnext\u202eline";
    expect(gatewayText(hostile)).toBe("bad prompt red<script>x</script> nextline");
  });

  it("drops an escape sequence left unterminated at the end", () => {
    expect(gatewayText("oops\u001b]2;title with no end")).toBe("oops");
    expect(gatewayText("oops\u001b[")).toBe("oops");
  });

  it("cuts a long text, saying how many bytes went", () => {
    const text = gatewayText("é".repeat(GATEWAY_TEXT_MAX + 10));
    expect(text).toBe(`${"é".repeat(GATEWAY_TEXT_MAX)}… (20 bytes cut)`);
  });

  it("cleans the message of an error answer, and of a page that is not JSON", () => {
    const json = JSON.stringify({ error: { message: "no\u001b]0;t\u0007 way\u001b[2J" } });
    expect(errorFromResponse(400, {}, json, "submit", 0).message).toBe("submit: HTTP 400: no way");
    const page = "<html>\r\n<h1>502\u001b[5m Bad Gateway</h1>\r\n</html>";
    expect(errorFromResponse(502, {}, page, "poll", 0).message).toBe(
      "poll: HTTP 502: <html> <h1>502 Bad Gateway</h1> </html>",
    );
  });

  it("masks Bearer tokens, x-api-key values and the configured key", () => {
    const echoed =
      'denied: Authorization: Bearer sk-live-123456 {"x-api-key": "sk-live-123456"} key sk-live-123456';
    expect(gatewayText(echoed)).toBe(
      'denied: Authorization: Bearer *** {"x-api-key": "***"} key sk-live-123456',
    );
    expect(gatewayText(echoed, GATEWAY_TEXT_MAX, ["sk-live-123456"])).not.toContain("sk-live");
  });
});
