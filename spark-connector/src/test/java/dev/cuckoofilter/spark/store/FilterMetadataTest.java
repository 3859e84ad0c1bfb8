package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Metadata validation and the commit record's JSON, without any file system. */
class FilterMetadataTest {
  static final Instant NOW = Instant.parse("2025-01-02T03:04:05Z");

  static String refusal(List<StructField> keys, double fpp, long parent) {
    return assertThrows(IllegalArgumentException.class,
        () -> new FilterMetadata(keys, fpp, 1, 8, "s", NOW, parent, 1, Map.of())).getMessage();
  }

  @Test
  void invalidMetadataIsRefusedNamingTheField() {
    assertTrue(refusal(List.of(), 0.01, -1).contains("keyColumns: at least one key column"));
    List<StructField> arrays = List.of(DataTypes.createStructField("tags",
        DataTypes.createArrayType(DataTypes.StringType), true));
    assertTrue(refusal(arrays, 0.01, -1).contains("key column tags has unsupported type array<string>"));
    assertTrue(refusal(TestFilters.LONG_KEY, 1.0, -1).contains("fpp must be in [0, 1), got 1.0"));
    assertTrue(refusal(TestFilters.LONG_KEY, Double.NaN, -1).contains("fpp must be in [0, 1)"));
    assertTrue(refusal(TestFilters.LONG_KEY, 0.01, 0).contains("parentVersion must be -1 (no parent) or a version"));
    assertTrue(refusal(TestFilters.LONG_KEY, 0.01, -2).contains("parentVersion"));
    IllegalArgumentException noTime = assertThrows(IllegalArgumentException.class,
        () -> new FilterMetadata(TestFilters.LONG_KEY, 0.01, 1, 8, "s", null, -1, 1, Map.of()));
    assertTrue(noTime.getMessage().contains("createdAt is missing"));
  }

  @Test
  void theCommitRecordRoundTripsAndIsRefusedWhenItDisagreesWithItsName() throws Exception {
    CuckooFilter f = TestFilters.range(0, 50);
    FilterMetadata m = FilterMetadata.of(f, TestFilters.LONG_KEY, "src", 3).withProperties(Map.of("b", "2", "a", "1"));
    assertEquals(List.of("a", "b"), List.copyOf(m.properties().keySet()), "sorted, for byte-identical JSON");
    String id = "0686fed1-059b-4000-8a6f-e86e3a58fd31";
    CommitRecord r = new CommitRecord(4, id, "8a84e470-c530-4d5a-964d-5c15711f440d", NOW,
        new DataFileRef(StoreLayout.dataName(4, id), 2766, 0xFFFFFFFFL, 0), m.toVersionMetadata());
    byte[] json = r.toJson();
    assertEquals(r, CommitRecord.parse(json, 4));
    CommitRecord.Malformed wrongName = assertThrows(CommitRecord.Malformed.class, () -> CommitRecord.parse(json, 5));
    assertTrue(wrongName.getMessage().contains("records version 4 but is the commit file of version 5"));
    String text = new String(json, java.nio.charset.StandardCharsets.UTF_8);
    CommitRecord.Malformed otherFile = assertThrows(CommitRecord.Malformed.class, () -> CommitRecord.parse(
        text.replace(StoreLayout.dataName(4, id), "../../elsewhere.ckf").getBytes(java.nio.charset.StandardCharsets.UTF_8),
        4));
    assertTrue(otherFile.getMessage().contains("is not the data file name of version 4"), otherFile.getMessage());
    assertEquals(m.withParentVersion(5).parentVersion(), 5);
    assertEquals(4, StoreLayout.versionOfCommitName("00000000000000000004.json"));
    assertEquals(-1, StoreLayout.versionOfCommitName("00000000000000000004.json.tmp"));
    assertEquals(-1, StoreLayout.versionOfCommitName("00000000000000000000.json"));
  }

  @Test
  void versionMetadataIsTheSameMetadataWithKeyColumnsAsSchemaJson() {
    Metadata comment = new MetadataBuilder().putString("comment", "ünïcode ✓").build();
    List<StructField> keys = List.of(
        DataTypes.createStructField("region", DataTypes.StringType, true, comment),
        DataTypes.createStructField("pair", DataTypes.createStructType(new StructField[] {
            DataTypes.createStructField("a", DataTypes.IntegerType, false),
            DataTypes.createStructField("b", DataTypes.createDecimalType(20, 3), true)}), true));
    FilterMetadata typed = new FilterMetadata(keys, 0.001, 5, 64, "src", NOW, 2, 1, Map.of("k", "v"));
    VersionMetadata plain = typed.toVersionMetadata();
    assertEquals(new StructType(keys.toArray(new StructField[0])).json(), plain.keyColumnsJson());
    assertEquals(typed, FilterMetadata.fromVersionMetadata(plain));
    VersionMetadata spaced = new VersionMetadata(" {\"type\" : \"struct\", \"fields\" : [ {\"name\":\"id\", "
        + "\"type\":\"long\", \"nullable\":true, \"metadata\":{}} ]} ", 0.01, 1, 8, "s", NOW, -1, 1, Map.of());
    assertEquals(TestFilters.LONG_KEY, FilterMetadata.fromVersionMetadata(spaced).keyColumns());
    assertEquals(new StructType(TestFilters.LONG_KEY.toArray(new StructField[0])).json(), spaced.keyColumnsJson(),
        "normalized to the compact form");
  }

  @Test
  void versionMetadataRefusesKeyColumnsThatAreNotAStructSchema() {
    for (String bad : List.of("", "[]", "{\"type\":\"long\"}", "{\"type\":\"struct\",\"fields\":[]}",
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}", "{not json")) {
      assertThrows(IllegalArgumentException.class,
          () -> new VersionMetadata(bad, 0.01, 1, 8, "s", NOW, -1, 1, Map.of()), bad);
    }
    VersionMetadata arrays = new VersionMetadata("{\"type\":\"struct\",\"fields\":[{\"name\":\"tags\","
        + "\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true},\"nullable\":true,"
        + "\"metadata\":{}}]}", 0.01, 1, 8, "s", NOW, -1, 1, Map.of());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FilterMetadata.fromVersionMetadata(arrays));
    assertTrue(e.getMessage().contains("key column tags has unsupported type array<string>"), e.getMessage());
    IllegalArgumentException fpp = assertThrows(IllegalArgumentException.class, () -> new VersionMetadata(
        arrays.keyColumnsJson(), 1.5, 1, 8, "s", NOW, -1, 1, Map.of()));
    assertTrue(fpp.getMessage().contains("VersionMetadata.fpp must be in [0, 1), got 1.5"), fpp.getMessage());
  }
}
