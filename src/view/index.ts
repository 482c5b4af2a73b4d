/** `gwrun view`: the local web app over the store — runs, live progress, timeline, review. */

export { type GalleryRefresher, galleryRefresher } from "./gallery-refresh.js";
export { startViewServer, type ViewOptions, type ViewServer } from "./server.js";
