// The API paths of one export, written once: the routes are defined at them (with `{exportId}`),
// and the answers that point at them (statusUrl, Location, fileUrl, a download link) are built
// from them.

export const exportStatusPath = (exportId: string) => `/fiscal-document/v1/folios/exports/${exportId}`;
export const exportFilePath = (exportId: string) => `${exportStatusPath(exportId)}/file`;
