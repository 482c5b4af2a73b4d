/** `gwrun view`: the web app over the store — runs, live progress, timeline, review, sharing. */

export { type GalleryRefresher, galleryRefresher } from "./gallery-refresh.js";
export { hostPort, isWildcard, type ListenAddress, parseListen } from "./listen.js";
export {
  INVITE_EXPIRES,
  type Invitation,
  type InviteState,
  inviteReviewer,
  inviteState,
  revokeReviewer,
} from "./reviewers.js";
export {
  refuseUnshared,
  startViewServer,
  type ViewAccess,
  type ViewOptions,
  type ViewServer,
  type ViewSharing,
} from "./server.js";
