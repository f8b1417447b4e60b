// The operator's small HTML pages (the delivery panel, the dashboard's sign-in page) put request
// and database text in markup through this one escape.

/** `text` safe inside an element or a quoted attribute. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
