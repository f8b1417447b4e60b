// The payment mentions French law requires on a business invoice (Code de commerce, art. L441-9 and
// L441-10), as the notes with a subject code that the French e-invoicing rules check (BR-FR-05: one
// each of PMT, PMD and AAB). A document of a French seller carries them in `subjectNotes`
// (document-model.ts), frozen with it. The wording is the statutory default; a property that agreed
// other terms with its buyers (a discount, another penalty rate) needs its own.

export const FRENCH_PAYMENT_MENTIONS: ReadonlyArray<{ subjectCode: 'PMT' | 'PMD' | 'AAB'; text: string }> = [
  { subjectCode: 'PMT', text: 'Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40 €.' },
  { subjectCode: 'PMD', text: 'Pénalités de retard : taux d’intérêt de la Banque centrale européenne majoré de 10 points.' },
  { subjectCode: 'AAB', text: 'Pas d’escompte pour paiement anticipé.' },
];
