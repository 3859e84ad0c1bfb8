package dev.cuckoofilter.spark.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cuckoofilter.core.format.FilterFormat;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The content of a commit file {@code versions/<version>.json}: a version exists exactly when its commit
 * file does. The JSON is specified in docs/STORE.md ("Commit record"). Reading and writing it needs no
 * Spark: the key columns stay JSON ({@link VersionMetadata}).
 *
 * @param version        the version number
 * @param commitId       unique id of this publish (also in the data file's name)
 * @param parentCommitId the commit id of the parent version, null for none; lets a writer tell a version
 *                       built on its own commit from one that existed before (see FilterStore#publish)
 * @param publishedAt    when the version was committed (writer's clock)
 * @param data           the data file
 * @param metadata       the metadata published with the filter
 */
record CommitRecord(long version, String commitId, String parentCommitId, Instant publishedAt, DataFileRef data,
    VersionMetadata metadata) {

  /** Layout version of the commit JSON; readers refuse newer ones instead of misreading them. */
  static final int STORE_FORMAT = 1;
  static final String FORMAT_NAME = "spark-cuckoo filter store";

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  FilterVersion toVersion(String location) {
    return new FilterVersion(location, version, publishedAt, data.bytes());
  }

  byte[] toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT_NAME);
    root.put("storeFormat", STORE_FORMAT);
    root.put("version", version);
    root.put("commitId", commitId);
    if (parentCommitId == null) {
      root.putNull("parentCommitId");
    } else {
      root.put("parentCommitId", parentCommitId);
    }
    root.put("publishedAt", publishedAt.toString());
    ObjectNode d = root.putObject("data");
    d.put("file", data.name());
    d.put("bytes", data.bytes());
    d.put("headerCrc32c", data.headerCrc32c());
    d.put("bodyCrc32c", data.bodyCrc32c());
    ObjectNode m = root.putObject("metadata");
    try {
      m.set("keyColumns", JSON.readTree(metadata.keyColumnsJson()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("VersionMetadata holds key columns Jackson cannot read back", e);
    }
    m.put("fpp", metadata.fpp());
    m.put("itemCount", metadata.itemCount());
    m.put("capacity", metadata.capacity());
    m.put("source", metadata.source());
    m.put("createdAt", metadata.createdAt().toString());
    m.put("parentVersion", metadata.parentVersion());
    m.put("formatVersion", metadata.formatVersion());
    ObjectNode p = m.putObject("properties");
    metadata.properties().forEach(p::put);
    try {
      return JSON.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a commit record", e);
    }
  }

  /**
   * Parses a commit file.
   *
   * @param expectedVersion the version the file's name stands for; the record must agree
   * @throws Malformed naming the first field that is missing or wrong
   */
  static CommitRecord parse(byte[] json, long expectedVersion) throws Malformed {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new Malformed("not valid JSON (" + firstLine(e.getMessage()) + ")");
    }
    if (root == null || !root.isObject()) {
      throw new Malformed("not a JSON object" + (json.length == 0 ? " (the file is empty)" : ""));
    }
    if (!FORMAT_NAME.equals(text(root, "format"))) {
      throw new Malformed("field format is not \"" + FORMAT_NAME + "\"");
    }
    long storeFormat = integer(root, "storeFormat");
    if (storeFormat != STORE_FORMAT) {
      throw new Malformed("storeFormat " + storeFormat + " is not supported; this library reads storeFormat "
          + STORE_FORMAT + (storeFormat > STORE_FORMAT ? " (written by a newer version?)" : ""));
    }
    long version = integer(root, "version");
    if (version != expectedVersion) {
      throw new Malformed("it records version " + version + " but is the commit file of version " + expectedVersion);
    }
    String commitId = text(root, "commitId");
    JsonNode parentId = root.get("parentCommitId");
    if (parentId == null || !(parentId.isNull() || parentId.isTextual())) {
      throw new Malformed("field parentCommitId is missing or not a string or null");
    }
    Instant publishedAt = instant(root, "publishedAt");
    JsonNode d = object(root, "data");
    String file = text(d, "file");
    if (!file.equals(StoreLayout.dataName(version, commitId)) || StoreLayout.versionOfDataName(file) != version) {
      throw new Malformed("data.file \"" + file + "\" is not the data file name of version " + version
          + " and commit " + commitId);
    }
    long bytes = integer(d, "bytes");
    if (bytes < MIN_FILTER_BYTES) {
      throw new Malformed("data.bytes " + bytes + " is smaller than any filter (" + MIN_FILTER_BYTES + " bytes)");
    }
    DataFileRef data = new DataFileRef(file, bytes, uint32(d, "headerCrc32c"), uint32(d, "bodyCrc32c"));
    JsonNode m = object(root, "metadata");
    JsonNode keys = object(m, "keyColumns");
    Map<String, String> properties = new LinkedHashMap<>();
    JsonNode props = object(m, "properties");
    for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isTextual()) {
        throw new Malformed("metadata.properties." + e.getKey() + " is not a string");
      }
      properties.put(e.getKey(), e.getValue().asText());
    }
    JsonNode fpp = m.get("fpp");
    if (fpp == null || !fpp.isNumber()) {
      throw new Malformed("field fpp is missing or not a number");
    }
    long formatVersion = integer(m, "formatVersion");
    if (formatVersion < Integer.MIN_VALUE || formatVersion > Integer.MAX_VALUE) {
      throw new Malformed("field formatVersion " + formatVersion + " is out of range"); // not cast to another one
    }
    VersionMetadata metadata;
    try {
      metadata = new VersionMetadata(keys.toString(), fpp.asDouble(), integer(m, "itemCount"), integer(m, "capacity"),
          text(m, "source"), instant(m, "createdAt"), integer(m, "parentVersion"), (int) formatVersion,
          properties);
    } catch (IllegalArgumentException e) {
      throw new Malformed(e.getMessage());
    }
    // publish makes version n + 1 on parent n, and version 1 on none: another parent was not written by a publish.
    long parent = version == 1 ? FilterMetadata.NO_PARENT : version - 1;
    if (metadata.parentVersion() != parent) {
      throw new Malformed("metadata.parentVersion is " + metadata.parentVersion() + " but the parent of version "
          + version + " is " + (parent == FilterMetadata.NO_PARENT ? "none (-1)" : String.valueOf(parent)));
    }
    return new CommitRecord(version, commitId, parentId.isNull() ? null : parentId.asText(), publishedAt, data,
        metadata);
  }

  /** A commit file that is not a commit record this library can read; the message says why. */
  /** The smallest serialized filter: its header and the body checksum around at least one table byte. */
  private static final long MIN_FILTER_BYTES = FilterFormat.HEADER_BYTES + 5;

  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  private static JsonNode object(JsonNode parent, String field) throws Malformed {
    JsonNode n = parent.get(field);
    if (n == null || !n.isObject()) {
      throw new Malformed("field " + field + " is missing or not an object");
    }
    return n;
  }

  private static String text(JsonNode parent, String field) throws Malformed {
    JsonNode n = parent.get(field);
    if (n == null || !n.isTextual()) {
      throw new Malformed("field " + field + " is missing or not a string");
    }
    return n.asText();
  }

  private static long integer(JsonNode parent, String field) throws Malformed {
    JsonNode n = parent.get(field);
    if (n == null || !n.isIntegralNumber() || !n.canConvertToLong()) {
      throw new Malformed("field " + field + " is missing or not an integer");
    }
    return n.asLong();
  }

  private static long uint32(JsonNode parent, String field) throws Malformed {
    long v = integer(parent, field);
    if (v < 0 || v > 0xFFFFFFFFL) {
      throw new Malformed("field " + field + " is not an unsigned 32-bit value: " + v);
    }
    return v;
  }

  private static Instant instant(JsonNode parent, String field) throws Malformed {
    String s = text(parent, field);
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      throw new Malformed("field " + field + " is not an ISO-8601 instant: \"" + s + "\"");
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
