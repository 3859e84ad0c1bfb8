package dev.cuckoofilter.spark.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.format.FilterFormat;
import java.io.Serializable;
import java.time.Instant;
import java.util.Map;

/**
 * What is published with a version, exactly as its commit record holds it (docs/STORE.md, "Commit
 * record"): {@link FilterMetadata} with the key columns as the JSON of their Spark schema instead of
 * Spark types. Tools that read and publish versions without Spark on the classpath (the command-line
 * tool, other languages' readers) use this form; Spark code uses {@link FilterMetadata}, and
 * {@link FilterMetadata#toVersionMetadata()} and {@link FilterMetadata#fromVersionMetadata} convert.
 *
 * @param keyColumnsJson the key columns as a Spark schema in JSON ({@code StructType.json()}): an object
 *                       {@code {"type":"struct","fields":[{"name":..,"type":..,"nullable":..,"metadata":{..}},..]}}
 *                       with at least one field; kept in compact form
 * @param fpp            the false-positive rate the filter was built for, in [0, 1)
 * @param itemCount      items in the filter ({@link CuckooFilter#size()})
 * @param capacity       table entries ({@link CuckooFilter#capacity()})
 * @param source         where the keys came from, free text
 * @param createdAt      when the filter was built
 * @param parentVersion  the version this one replaces; {@link FilterMetadata#NO_PARENT} for the first
 * @param formatVersion  the binary format of the filter (docs/FORMAT.md)
 * @param properties     free-form pairs for tools and jobs, sorted by key
 */
public record VersionMetadata(String keyColumnsJson, double fpp, long itemCount, long capacity, String source,
    Instant createdAt, long parentVersion, int formatVersion, Map<String, String> properties)
    implements Serializable {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Validates and copies the arguments; the key columns' JSON is normalized to its compact form, so equal
   * schemas give equal metadata.
   *
   * @throws IllegalArgumentException naming the field that is missing or out of range
   */
  public VersionMetadata {
    keyColumnsJson = normalizedKeyColumns(keyColumnsJson);
    MetadataChecks.check("VersionMetadata", fpp, itemCount, capacity, createdAt, parentVersion, formatVersion);
    source = source == null ? "" : source;
    properties = MetadataChecks.sortedProperties("VersionMetadata", properties);
  }

  /**
   * Metadata describing {@code filter} as {@link FilterMetadata#of} does, with key columns given as
   * Spark schema JSON.
   */
  public static VersionMetadata of(CuckooFilter filter, String keyColumnsJson, String source, long parentVersion) {
    if (filter == null) {
      throw new IllegalArgumentException("VersionMetadata.of: filter is null");
    }
    return new VersionMetadata(keyColumnsJson, MetadataChecks.fppOf(filter), filter.size(), filter.capacity(), source,
        Instant.now(), parentVersion, FilterFormat.VERSION, Map.of());
  }

  /** The same metadata based on another parent (to retry a publish after a {@link FilterConflictException}). */
  public VersionMetadata withParentVersion(long parent) {
    return new VersionMetadata(keyColumnsJson, fpp, itemCount, capacity, source, createdAt, parent, formatVersion,
        properties);
  }

  /** The same metadata with other properties. */
  public VersionMetadata withProperties(Map<String, String> newProperties) {
    return new VersionMetadata(keyColumnsJson, fpp, itemCount, capacity, source, createdAt, parentVersion,
        formatVersion, newProperties);
  }

  /**
   * Checks the shape Spark's {@code DataType.fromJson} needs for a struct schema (a field without
   * {@code nullable} is not one), without Spark; which types can be keys is checked where Spark types
   * are made ({@link FilterMetadata#fromVersionMetadata}).
   */
  static String normalizedKeyColumns(String json) {
    if (json == null || json.isBlank()) {
      throw new IllegalArgumentException("VersionMetadata.keyColumnsJson is missing");
    }
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("VersionMetadata.keyColumnsJson is not valid JSON: "
          + e.getOriginalMessage());
    }
    if (root == null || !root.isObject() || !"struct".equals(root.path("type").asText(null))) {
      throw new IllegalArgumentException("VersionMetadata.keyColumnsJson is not a Spark struct schema "
          + "({\"type\":\"struct\",\"fields\":[...]})");
    }
    JsonNode fields = root.get("fields");
    if (fields == null || !fields.isArray() || fields.isEmpty()) {
      throw new IllegalArgumentException("VersionMetadata.keyColumnsJson: at least one key column is needed");
    }
    for (JsonNode f : fields) {
      JsonNode type = f.get("type");
      if (!f.isObject() || !f.path("name").isTextual() || type == null || !(type.isTextual() || type.isObject())
          || !f.path("nullable").isBoolean()) {
        throw new IllegalArgumentException("VersionMetadata.keyColumnsJson: field " + f + " is not a Spark struct "
            + "field (name, type, nullable)");
      }
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Jackson cannot write a tree it read", e);
    }
  }
}
