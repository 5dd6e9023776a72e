import {
  type AsyncBuffer,
  asyncBufferFromFile,
  type DecodedArray,
  type FileMetaData,
  parquetMetadataAsync,
  parquetRead,
} from "hyparquet";
import { compressors } from "hyparquet-compressors";

/** A Parquet file opened for column reads: the byte source and its footer, parsed once. */
export interface ParquetTable {
  file: AsyncBuffer;
  metadata: FileMetaData;
  rows: number;
}

export async function openParquet(path: string): Promise<ParquetTable> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  return { file, metadata, rows: Number(metadata.num_rows) };
}

/** Column values of one slice of rows, each array holding exactly rows [rowStart, rowEnd). */
export type ColumnSlice<C extends string> = Record<C, DecodedArray>;

// INT96 and INT64 timestamps arrive as epoch milliseconds (plain numbers), not Date objects: 1.5 M Dates per
// slice would cost more than the aggregation that reads them.
const parsers = {
  timestampFromNanoseconds: (nanos: bigint) => Number(nanos / 1_000_000n),
  timestampFromMicroseconds: (micros: bigint) => Number(micros / 1_000n),
  timestampFromMilliseconds: (millis: bigint) => Number(millis),
};

/** Reads the named columns of rows [rowStart, rowEnd) (the reader decodes only the pages that hold them). */
export async function readColumns<C extends string>(
  table: ParquetTable,
  columns: readonly C[],
  rowStart: number,
  rowEnd: number,
): Promise<ColumnSlice<C>> {
  const chunks = new Map<string, { rowStart: number; data: DecodedArray }[]>();
  await parquetRead({
    file: table.file,
    metadata: table.metadata,
    columns: [...columns],
    rowStart,
    rowEnd,
    compressors,
    parsers,
    onChunk: (chunk) => {
      const list = chunks.get(chunk.columnName) ?? [];
      list.push({ rowStart: chunk.rowStart, data: chunk.columnData });
      chunks.set(chunk.columnName, list);
    },
  });
  const out = {} as ColumnSlice<C>;
  for (const column of columns) {
    // Chunks may start before rowStart or end after rowEnd (whole pages): keep the requested rows only.
    const parts = (chunks.get(column) ?? []).sort((a, b) => a.rowStart - b.rowStart);
    const kept: DecodedArray[] = [];
    for (const part of parts) {
      const from = Math.max(rowStart - part.rowStart, 0);
      const to = Math.min(rowEnd - part.rowStart, part.data.length);
      if (to > from) kept.push(part.data.slice(from, to));
    }
    const length = kept.reduce((n, part) => n + part.length, 0);
    if (length !== rowEnd - rowStart) {
      throw new Error(`column ${column}: read ${length} rows of ${rowEnd - rowStart}`);
    }
    out[column] =
      kept.length === 1 ? kept[0]! : kept.flatMap((part) => Array.from(part as ArrayLike<unknown>));
  }
  return out;
}

/**
 * Calls `visit` on consecutive slices of at most `sliceRows` rows, one at a time, so a table larger than
 * memory as objects (the 20.9 M promotion rows) is aggregated with a bounded footprint.
 */
export async function forEachSlice<C extends string>(
  table: ParquetTable,
  columns: readonly C[],
  sliceRows: number,
  visit: (slice: ColumnSlice<C>, length: number) => void,
): Promise<void> {
  for (let start = 0; start < table.rows; start += sliceRows) {
    const end = Math.min(table.rows, start + sliceRows);
    visit(await readColumns(table, columns, start, end), end - start);
  }
}
