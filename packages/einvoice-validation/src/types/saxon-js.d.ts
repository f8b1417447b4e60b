// The part of SaxonJS 2.7's API (saxon-js has no type declarations of its own) that validate.ts uses:
// a synchronous transform of an exported stylesheet (SEF) and an XPath 3.1 evaluation.
declare module 'saxon-js' {
  interface TransformOptions {
    stylesheetInternal: unknown;
    /** The static base URI of a relocatable SEF: where document('…') calls in the stylesheet resolve. */
    stylesheetBaseURI?: string;
    sourceText: string;
    destination: 'document' | 'serialized';
  }
  interface TransformResult {
    principalResult: unknown;
  }
  interface XPathOptions {
    namespaceContext?: Record<string, string>;
  }
  const SaxonJS: {
    transform(options: TransformOptions, mode: 'sync'): TransformResult;
    XPath: { evaluate(expression: string, context: unknown, options?: XPathOptions): unknown };
  };
  export default SaxonJS;
}
