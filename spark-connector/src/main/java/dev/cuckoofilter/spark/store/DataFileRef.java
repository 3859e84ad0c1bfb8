package dev.cuckoofilter.spark.store;

import java.io.Serializable;

/**
 * What a commit record says about its version's data file: enough to find it and to check that the
 * bytes read are exactly the bytes published (the format's own checksums only prove that the bytes are
 * <em>a</em> filter; these prove they are <em>this</em> one).
 *
 * @param name         file name under {@code data/}
 * @param bytes        file length
 * @param headerCrc32c the CRC32C stored at bytes 76..79 of the file (docs/FORMAT.md)
 * @param bodyCrc32c   the CRC32C stored in the last 4 bytes of the file
 */
record DataFileRef(String name, long bytes, long headerCrc32c, long bodyCrc32c) implements Serializable {}
