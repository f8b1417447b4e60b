// What the render job builds a fiscal document's files with: the CII and UBL writers, and the
// Factur-X PDF in the render processes (the front desk's priority, beside on-demand exports).

import type { RenderPool } from '../exports/render-pool.js';
import { buildCii } from './cii.js';
import type { TFiscalFileBuilders } from './fiscal-renderer.js';
import { buildUbl } from './ubl.js';

export function fiscalFileBuilders(renderer: RenderPool): TFiscalFileBuilders {
  return {
    cii: buildCii,
    ubl: buildUbl,
    facturX: (document, cii, outputPath) => renderer.renderInvoice(document, cii, outputPath, 'on-demand'),
  };
}
