// The on-disk format of a journaled pool's journal files (native/LAYOUT.md, "Journaled pools"): a
// header naming the file's salt and the commit sequence it continues from, then checksummed
// records. Reading stops at the first record that is cut short, fails its checksum, carries
// another file's salt or breaks the sequence: such a record was never made durable on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pmemcql {

constexpr uint64_t kJournalFileMagic = 0x3144484a4c514350ull;    // "PCQLJHD1" read as little-endian bytes
constexpr uint64_t kJournalRecordMagic = 0x324e524a4c514350ull;  // "PCQLJRN2"
constexpr uint32_t kJournalVersion = 1;
constexpr size_t kJournalHeaderBytes = 64;
constexpr size_t kRecordHeaderBytes = 40;  // magic, salt, seq, u32 type, u32 ranges, u64 record bytes
constexpr size_t kRangeHeaderBytes = 12;   // u64 pool offset, u32 length
constexpr size_t kChecksumBytes = 8;
constexpr uint64_t kMaxRangeChunk = 1ull << 30;  // range lengths are u32: longer ranges are split

enum class RecordType : uint32_t {
  Data = 1,  // pool bytes after a commit
  End = 2,   // the file is complete; its payload names the salt of the file that continues it
};

/** The first 64 bytes of a journal file. */
struct JournalHeader {
  uint64_t salt = 0;        // random per file incarnation; every record repeats it
  uint64_t baseSeq = 0;     // the commit sequence of the pool state the first record applies to
  uint64_t poolId = 0;      // root.reserved[3] of the pool this journal belongs to
  uint64_t rootOffset = 0;  // pool offset of the PoolRoot (to read sequence, boot and id without opening)
  uint64_t poolSize = 0;
};

/** 64-bit multiply-rotate hash in four lanes (murmur3's finaliser at the end); not cryptographic. */
uint64_t journalHash(const char* p, size_t n);
/** The single-lane hash of the journal of earlier builds (legacy conversion). */
uint64_t legacyJournalHash(const char* p, size_t n);

void encodeJournalHeader(const JournalHeader& h, char out[kJournalHeaderBytes]);
/** False when the bytes are not a whole, checksummed header of this version. */
bool decodeJournalHeader(const char in[kJournalHeaderBytes], JournalHeader& h);

/** A range of pool bytes inside a record being replayed. */
struct RecordRange {
  uint64_t offset;
  const char* bytes;
  uint32_t length;
};

/** What reading one journal file found. */
struct JournalFileScan {
  bool hasHeader = false;
  JournalHeader header;
  uint64_t fileSize = 0;
  uint64_t validEnd = 0;  // bytes of header + whole valid records
  uint64_t records = 0;   // valid records, End included
  uint64_t lastSeq = 0;   // sequence after the last valid record (header.baseSeq when none)
  bool ended = false;     // the last valid record is an End record
  uint64_t nextSalt = 0;  // its payload
  /** Why reading stopped before fileSize (empty when it did not, or when only zeros follow). */
  std::string problem;
};

/**
 * Reads the journal file on `fd` from its start. For each valid Data record in order, `visit` (may be
 * empty) gets its ranges. `poolSize` bounds the offsets a range may name.
 */
JournalFileScan scanJournalFile(int fd, uint64_t poolSize,
                                const std::function<void(uint64_t seq, const std::vector<RecordRange>&)>& visit);

/**
 * scanJournalFile checking every record's header but reading only the last record whole: enough in the boot that
 * wrote the file, where only its last write can be torn (records are appended by one writer, in order), and
 * O(records) instead of O(bytes) for an open that trusts the working pool.
 */
JournalFileScan scanJournalHeaders(int fd, uint64_t poolSize);

}  // namespace pmemcql
