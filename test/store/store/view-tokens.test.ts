import { describe, expect, it } from "vitest";
import { sha256 } from "../../../src/core/hash.js";
import { inviteReviewer, inviteState, revokeReviewer } from "../../../src/view/index.js";
import { reviewerOf } from "../../../src/view/reviewers.js";
import { openStoreOf, STORE_KINDS } from "../../helpers/store.js";

const DAY = 86_400_000;

describe.each(STORE_KINDS)("store (%s): the shared viewer's reviewers", (kind) => {
  it("keeps a reviewer's token as its sha256 only, and finds the reviewer by it until it expires", async () => {
    const { store } = await openStoreOf(kind);
    try {
      const invited = await inviteReviewer(store, "anna", "7d", 1000);
      expect(invited.expiresAt).toBe(1000 + 7 * DAY);
      const rows = await store.sql("SELECT * FROM view_tokens");
      expect(rows).toEqual([
        {
          name: "anna",
          token_sha256: sha256(invited.token),
          created_at: 1000,
          expires_at: 1000 + 7 * DAY,
          revoked_at: null,
        },
      ]);
      expect(JSON.stringify(rows)).not.toContain(invited.token);
      expect(await reviewerOf(store, invited.token, 2000)).toBe("anna");
      expect(await reviewerOf(store, `${invited.token}x`, 2000)).toBeUndefined();
      expect(await reviewerOf(store, "", 2000)).toBeUndefined();
      // Expired: refused, and listed so.
      expect(await reviewerOf(store, invited.token, 1000 + 7 * DAY)).toBeUndefined();
      const [row] = await store.viewTokens();
      expect(row && inviteState(row, 1000 + 7 * DAY)).toBe("expired");
    } finally {
      await store.close();
    }
  });

  it("revokes once (guarded), and a new invitation of the name replaces its token", async () => {
    const { store } = await openStoreOf(kind);
    try {
      const first = await inviteReviewer(store, "anna", "1h", 1000);
      await inviteReviewer(store, "ben", "1h", 1000);
      expect(await revokeReviewer(store, "anna", 2000)).toBe(true);
      expect(await revokeReviewer(store, "anna", 3000)).toBe(false);
      expect(await revokeReviewer(store, "nobody", 3000)).toBe(false);
      expect(await reviewerOf(store, first.token, 2500)).toBeUndefined();
      expect(
        (await store.viewTokens()).map((row) => [row.name, row.revoked_at, inviteState(row, 2500)]),
      ).toEqual([
        ["anna", 2000, "revoked"],
        ["ben", null, "active"],
      ]);
      const again = await inviteReviewer(store, "anna", "1h", 4000);
      expect(await reviewerOf(store, again.token, 4001)).toBe("anna");
      expect(await reviewerOf(store, first.token, 4001)).toBeUndefined();
      expect((await store.viewTokens()).map((row) => row.name)).toEqual(["anna", "ben"]);
    } finally {
      await store.close();
    }
  });

  it("refuses a name reviews could not record, and a duration that is none", async () => {
    const { store } = await openStoreOf(kind);
    try {
      await expect(inviteReviewer(store, "agent", "7d", 1)).rejects.toThrow(/cannot name/);
      await expect(inviteReviewer(store, "a b", "7d", 1)).rejects.toThrow(/cannot name/);
      await expect(inviteReviewer(store, "anna", "soon", 1)).rejects.toThrow(/--expires/);
      expect(await store.viewTokens()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
