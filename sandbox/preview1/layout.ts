/**
 * Preview-1's record layouts: offsets and sizes of the records the binding
 * reads and writes in a guest's memory. Below `memory.ts` (which reads
 * iovecs by them) and `values.ts` (which writes stats by them).
 *
 * @module
 */

/**
 * The record layouts the binding reads and writes (offsets and sizes in
 * bytes, nested records and unions flattened: `subscription.timeout` is
 * `u.clock.timeout`), as the preview-1 witx lays them out (`values_test.ts`
 * checks each against `testdata/typenames.witx`).
 */
export const LAYOUT = {
  iovec: { size: 8, align: 4, fields: { buf: 0, buf_len: 4 } },
  filestat: {
    size: 64,
    align: 8,
    fields: { dev: 0, ino: 8, filetype: 16, nlink: 24, size: 32, atim: 40, mtim: 48, ctim: 56 },
  },
  fdstat: {
    size: 24,
    align: 8,
    fields: { fs_filetype: 0, fs_flags: 2, fs_rights_base: 8, fs_rights_inheriting: 16 },
  },
  dirent: { size: 24, align: 8, fields: { d_next: 0, d_ino: 8, d_namlen: 16, d_type: 20 } },
  subscription: {
    size: 48,
    align: 8,
    fields: {
      userdata: 0,
      tag: 8,
      id: 16,
      timeout: 24,
      precision: 32,
      flags: 40,
      file_descriptor: 16,
    },
  },
  event: {
    size: 32,
    align: 8,
    fields: { userdata: 0, error: 8, type: 10, nbytes: 16, flags: 24 },
  },
  prestat: { size: 8, align: 4, fields: { tag: 0, pr_name_len: 4 } },
} as const;
