/**
 * The binary format, version 1, specified byte by byte in docs/FORMAT.md: {@link
 * dev.cuckoofilter.core.format.FilterFormat} writes and reads it as a stream, validating every field,
 * length and CRC32C checksum before a filter exists. Java serialization and the Kryo serializer go
 * through it too, so a filter has exactly one serialized form.
 */
package dev.cuckoofilter.core.format;
