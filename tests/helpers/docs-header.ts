/**
 * docs.bin with its JSON header edited (search/index/generation-docs.ts): the prefix is the magic,
 * the format version and the header's length (u32 at byte 8), then the header; the sections start
 * at the next multiple of 8 after it, and are moved along with a header of another length.
 */
export function withDocsHeader(bytes: Buffer, edit: (header: Record<string, unknown>) => void): Buffer {
  const h = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.toString('utf8', 12, 12 + h)) as Record<string, unknown>;
  edit(header);
  const json = Buffer.from(JSON.stringify(header));
  const sections = bytes.subarray(Math.ceil((12 + h) / 8) * 8);
  const start = Math.ceil((12 + json.length) / 8) * 8;
  const out = Buffer.alloc(start + sections.length);
  bytes.copy(out, 0, 0, 8);
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  sections.copy(out, start);
  return out;
}
