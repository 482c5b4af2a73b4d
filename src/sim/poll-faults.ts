import type { ServerResponse } from "node:http";
import type { SimContext } from "./context.js";
import { countError } from "./counters.js";

/** A proxy's error page, as gateways behind one send when the service behind is down. */
const BAD_GATEWAY_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>
`;

/**
 * The injected faults of a task query: an HTML 502 page, or a 200 whose body is not JSON.
 * True when one was sent (the query is answered).
 */
export function sentBrokenPoll(
  context: SimContext,
  res: ServerResponse,
  identity: string,
): boolean {
  const { dice, options, counters } = context;
  if (dice.roll("html-poll", identity, options.faults.htmlPollRate)) {
    countError(counters, 502);
    res.writeHead(502, { "content-type": "text/html" });
    res.end(BAD_GATEWAY_PAGE);
    return true;
  }
  if (dice.roll("non-json-poll", identity, options.faults.nonJsonPollRate)) {
    countError(counters, "non_json");
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("upstream busy\r\n");
    return true;
  }
  return false;
}
