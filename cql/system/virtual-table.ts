import type { JsValue } from '../types/js-value-encoder.js';

/** A row a system or virtual table produces, by column name. */
export type RowObject = Record<string, JsValue>;

/** Produces the current rows of one system/virtual table. */
export type RowSource = () => RowObject[];
