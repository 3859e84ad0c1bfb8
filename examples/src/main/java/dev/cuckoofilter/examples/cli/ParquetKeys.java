package dev.cuckoofilter.examples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cuckoofilter.examples.common.InputException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Key columns of Parquet files, read with parquet-hadoop alone and hashed as Spark would hash the values
 * it reads from them ({@code docs/HASHING.md}, section 5), so that a filter built here equals one built by
 * Spark from the same files.
 *
 * <p>Parquet types map to Spark types as Spark 3.5's reader maps them with its default settings: INT32 is
 * int (byte, short for signed 8 and 16 bits; short, int, bigint for unsigned 8, 16, 32 bits), date or
 * decimal; INT64 is bigint, decimal(20,0) for unsigned, decimal, or timestamp (UTC-adjusted) and
 * timestamp_ntz (not adjusted) in millis or micros; INT96 is a timestamp; BINARY is string when annotated
 * as a string, enum or JSON, decimal, else binary; FIXED_LEN_BYTE_ARRAY is decimal or binary; BOOLEAN,
 * FLOAT and DOUBLE are themselves. Types Spark refuses (TIME, nanosecond timestamps, UUID, INTERVAL) are
 * refused. Only top-level, non-repeated columns can be keys.
 *
 * <p>Dates before 1582-10-15 and timestamps before 1900-01-01T00:00:00Z of files Spark wrote in the legacy hybrid
 * Julian/Gregorian calendar are refused: Spark rebases them when it reads them (see {@link #legacyBefore}), this
 * class does not. So are INT(8/16) values that do not fit Spark's tinyint or smallint, which Spark cuts to 8 or 16
 * bits, and BINARY and FIXED_LEN_BYTE_ARRAY decimals of precision 18 or less that Spark reads as another value (see
 * {@link #sparkUnscaledLong}).
 */
final class ParquetKeys {
  /** Julian day of 1970-01-01, the epoch of INT96 timestamps. */
  private static final long JULIAN_DAY_OF_EPOCH = 2_440_588;
  private static final long MICROS_PER_DAY = 86_400_000_000L;

  // Spark 3.5's RebaseDateTime.lastSwitchJulianDay and lastSwitchJulianTs: the hybrid calendar's days and
  // microseconds from these on are Spark's as they are (for every time zone); earlier ones Spark rebases.
  /** 1582-10-15. */
  private static final long LAST_SWITCH_JULIAN_DAY = -141_427;
  /** 1900-01-01T00:00:00Z. */
  private static final long LAST_SWITCH_JULIAN_MICROS = -2_208_988_800_000_000L;
  // Footer keys of Spark's Parquet writer (org.apache.spark.sql package object).
  private static final String SPARK_VERSION = "org.apache.spark.version";
  private static final String SPARK_LEGACY_DATETIME = "org.apache.spark.legacyDateTime";
  private static final String SPARK_LEGACY_INT96 = "org.apache.spark.legacyINT96";

  /** How a column's values become the Spark value that is hashed. */
  enum Kind {
    /** INT32 as it is: int, byte, short, date, decimal unscaled, unsigned 8 and 16 bits. */
    INT,
    /** INT32 as an unsigned 32-bit value (Spark: bigint). */
    UNSIGNED_INT,
    /** INT64 as it is: bigint, decimal unscaled, timestamps in microseconds. */
    LONG,
    /** INT64 timestamps in milliseconds, to microseconds. */
    MILLIS,
    /** INT64 unsigned (Spark: decimal(20,0)). */
    UNSIGNED_LONG,
    /** INT96 timestamps (nanoseconds of the day and Julian day), to microseconds. */
    INT96,
    BOOLEAN,
    /** FLOAT and DOUBLE. */
    FLOATING,
    /** BINARY and FIXED_LEN_BYTE_ARRAY strings and binaries: the bytes as stored. */
    BYTES,
    /** BINARY and FIXED_LEN_BYTE_ARRAY decimals: big-endian two's-complement unscaled values. */
    DECIMAL_BYTES
  }

  /**
   * A key column of a Parquet file.
   *
   * @param name      its name in the file
   * @param sparkType Spark's JSON name of the type Spark reads it as ({@link KeySchema})
   * @param kind      how its values become the Spark values that are hashed
   */
  record KeyColumn(String name, String sparkType, Kind kind) {
    /** The column as a key component of the filter's metadata. */
    KeySchema.Column schemaColumn() {
      return new KeySchema.Column(name, sparkType);
    }
  }

  private ParquetKeys() {}

  /** The schema in a Parquet file's footer. */
  static MessageType schema(Configuration conf, Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      return reader.getFileMetaData().getSchema();
    }
  }

  /** The key in a Parquet footer where Spark writes the schema it wrote the file with. */
  private static final String SPARK_SCHEMA = "org.apache.spark.sql.parquet.row.metadata";

  /**
   * The char types ({@code char(3)}) of the top-level columns of a file written by Spark, by column name, from
   * the Spark schema in its footer; empty for other files. Spark keeps a CHAR(n) column's type only there (the
   * Parquet type is a string), and probes pad a CHAR key of another length to it.
   */
  static Map<String, String> sparkCharTypes(Configuration conf, Path file) throws IOException {
    String json;
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      json = reader.getFileMetaData().getKeyValueMetaData().get(SPARK_SCHEMA);
    }
    Map<String, String> out = new TreeMap<>();
    if (json == null) {
      return out;
    }
    try {
      for (JsonNode f : new ObjectMapper().readTree(json).path("fields")) {
        String type = f.path("metadata").path("__CHAR_VARCHAR_TYPE_STRING").asText("").toLowerCase(Locale.ROOT);
        if (KeySchema.CHAR.matcher(type).matches()) {
          out.put(f.path("name").asText(), type);
        }
      }
    } catch (JsonProcessingException e) {
      return out; // not Spark's schema: no char types known, as for a file of another writer
    }
    return out;
  }

  /**
   * The key columns {@code names} of a file with schema {@code schema}. Names match exactly or, failing
   * that, ignoring case (as Spark resolves columns by default).
   *
   * @throws InputException if a column is missing, nested or repeated, or of a type Spark cannot read
   */
  static List<KeyColumn> keyColumns(MessageType schema, List<String> names, Path file) {
    List<KeyColumn> columns = new ArrayList<>();
    for (String name : names) {
      Type field = field(schema, name, file);
      if (!field.isPrimitive()) {
        throw new InputException("key column " + name + " of " + file + " is a group (a struct, list or map), not a "
            + "primitive column: " + field);
      }
      if (field.isRepetition(Type.Repetition.REPEATED)) {
        throw new InputException("key column " + name + " of " + file + " is repeated (a list), not a single value: "
            + field);
      }
      PrimitiveType p = field.asPrimitiveType();
      columns.add(mapped(p, file));
    }
    return columns;
  }

  private static Type field(MessageType schema, String name, Path file) {
    if (schema.containsField(name)) {
      return schema.getType(name);
    }
    Type match = null;
    for (Type f : schema.getFields()) {
      if (f.getName().equalsIgnoreCase(name)) {
        if (match != null) {
          throw new InputException("key column " + name + " is ambiguous in " + file + ": " + match.getName()
              + " and " + f.getName() + " differ only in case");
        }
        match = f;
      }
    }
    if (match == null) {
      List<String> available = new ArrayList<>();
      for (Type f : schema.getFields()) {
        available.add(f.getName());
      }
      throw new InputException(file + " has no column " + name + "; its columns are: " + String.join(", ", available));
    }
    return match;
  }

  private static KeyColumn mapped(PrimitiveType p, Path file) {
    LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
    String name = p.getName();
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        return new KeyColumn(name, "boolean", Kind.BOOLEAN);
      case FLOAT:
        return new KeyColumn(name, "float", Kind.FLOATING);
      case DOUBLE:
        return new KeyColumn(name, "double", Kind.FLOATING);
      case INT96:
        return new KeyColumn(name, "timestamp", Kind.INT96);
      case INT32:
        if (a == null) {
          return new KeyColumn(name, "integer", Kind.INT);
        }
        if (a instanceof DateLogicalTypeAnnotation) {
          return new KeyColumn(name, "date", Kind.INT);
        }
        if (a instanceof DecimalLogicalTypeAnnotation) {
          return new KeyColumn(name, decimal((DecimalLogicalTypeAnnotation) a, p, file), Kind.INT);
        }
        if (a instanceof IntLogicalTypeAnnotation) {
          IntLogicalTypeAnnotation i = (IntLogicalTypeAnnotation) a;
          if (i.isSigned()) {
            return new KeyColumn(name, i.getBitWidth() == 8 ? "byte"
                : i.getBitWidth() == 16 ? "short" : "integer", Kind.INT);
          }
          return i.getBitWidth() == 32 ? new KeyColumn(name, "long", Kind.UNSIGNED_INT)
              : new KeyColumn(name, i.getBitWidth() == 8 ? "short" : "integer", Kind.INT);
        }
        break;
      case INT64:
        if (a == null) {
          return new KeyColumn(name, "long", Kind.LONG);
        }
        if (a instanceof DecimalLogicalTypeAnnotation) {
          return new KeyColumn(name, decimal((DecimalLogicalTypeAnnotation) a, p, file), Kind.LONG);
        }
        if (a instanceof IntLogicalTypeAnnotation) {
          return ((IntLogicalTypeAnnotation) a).isSigned() ? new KeyColumn(name, "long", Kind.LONG)
              : new KeyColumn(name, "decimal(20,0)", Kind.UNSIGNED_LONG);
        }
        if (a instanceof TimestampLogicalTypeAnnotation) {
          TimestampLogicalTypeAnnotation t = (TimestampLogicalTypeAnnotation) a;
          String type = t.isAdjustedToUTC() ? "timestamp" : "timestamp_ntz";
          if (t.getUnit() == TimeUnit.MICROS) {
            return new KeyColumn(name, type, Kind.LONG);
          }
          if (t.getUnit() == TimeUnit.MILLIS) {
            return new KeyColumn(name, type, Kind.MILLIS);
          }
        }
        break;
      case BINARY:
      case FIXED_LEN_BYTE_ARRAY:
        if (a == null || a instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation) {
          return new KeyColumn(name, "binary", Kind.BYTES);
        }
        if (a instanceof DecimalLogicalTypeAnnotation) {
          return new KeyColumn(name, decimal((DecimalLogicalTypeAnnotation) a, p, file), Kind.DECIMAL_BYTES);
        }
        if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY
            && (a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                || a instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                || a instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation)) {
          return new KeyColumn(name, "string", Kind.BYTES);
        }
        break;
      default:
        break;
    }
    throw new InputException("key column " + name + " of " + file + " has Parquet type " + p.getPrimitiveTypeName()
        + (a == null ? "" : " (" + a + ")") + ", which Spark does not read as a key type");
  }

  private static String decimal(DecimalLogicalTypeAnnotation d, PrimitiveType p, Path file) {
    if (d.getPrecision() < 1 || d.getPrecision() > 38 || d.getScale() < 0 || d.getScale() > d.getPrecision()) {
      throw new InputException("key column " + p.getName() + " of " + file + " is DECIMAL(" + d.getPrecision() + ", "
          + d.getScale() + "), which Spark cannot read (precision 1 to 38, scale 0 to the precision)");
    }
    return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
  }

  /**
   * Reads the key columns of {@code file} and passes the hash of every non-null key to {@code hashes}.
   *
   * @param seed the filter's hash seed
   * @return the number of rows whose key is null (skipped)
   */
  static long readKeyHashes(Configuration conf, Path file, MessageType schema, List<KeyColumn> columns, long seed,
      LongConsumer hashes) throws IOException {
    KeyHashes record = new KeyHashes(schema, columns, seed);
    long nullKeys = 0;
    try (ParquetReader<KeyHashes> reader = ParquetReader.builder(record.readSupport(), file).withConf(conf).build()) {
      while (reader.read() != null) {
        if (record.refusedSlot >= 0) { // thrown here, not by the converters: parquet would wrap it
          KeyColumn column = record.slotColumns[record.refusedSlot];
          throw column.kind() == Kind.DECIMAL_BYTES
              ? decimalValue(file, column, record.refusedDecimal, record.refusedValue)
              : column.kind() == Kind.INT && narrowRange(column) != null
              ? narrowValue(file, column, record.refusedValue)
              : legacyCalendarValue(file, column, record.refusedValue);
        }
        if (record.isNull) {
          nullKeys++;
        } else {
          hashes.accept(record.hash);
        }
      }
    }
    return nullKeys;
  }

  /**
   * The smallest value (days or microseconds) of a key column that Spark reads from a file as it is stored, by the
   * file's footer as Spark 3.5 decides it ({@code DataSourceUtils.datetimeRebaseSpec}, {@code int96RebaseSpec}):
   * files Spark wrote before 3.0 (INT96: 3.1) or with the LEGACY rebase mode hold dates and timestamps in the hybrid
   * calendar, and Spark rebases the earlier ones to the proleptic Gregorian calendar. Long.MIN_VALUE for any other
   * column or file (timestamp_ntz is not rebased; files of other writers are read as stored, as Spark reads them
   * with the CORRECTED mode, and fail with its default mode).
   */
  private static long legacyBefore(KeyColumn column, Map<String, String> footer) {
    String version = footer.get(SPARK_VERSION);
    if (version == null) {
      return Long.MIN_VALUE;
    }
    if (column.kind() == Kind.INT96) {
      return version.compareTo("3.1.0") < 0 || footer.get(SPARK_LEGACY_INT96) != null
          ? LAST_SWITCH_JULIAN_MICROS : Long.MIN_VALUE;
    }
    if (version.compareTo("3.0.0") >= 0 && footer.get(SPARK_LEGACY_DATETIME) == null) {
      return Long.MIN_VALUE;
    }
    switch (column.sparkType()) {
      case "date":
        return LAST_SWITCH_JULIAN_DAY;
      case "timestamp":
        return LAST_SWITCH_JULIAN_MICROS;
      default:
        return Long.MIN_VALUE;
    }
  }

  /**
   * The range of a column Spark reads as tinyint or smallint (INT(8, signed), INT(16, signed), INT(8, unsigned)),
   * else null. Spark casts the stored int to the type (as its vectorized and row readers do), so a value outside it,
   * which a writer may store, is read as another one.
   */
  private static long[] narrowRange(KeyColumn column) {
    switch (column.sparkType()) {
      case "byte":
        return new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
      case "short":
        return new long[] {Short.MIN_VALUE, Short.MAX_VALUE};
      default:
        return null;
    }
  }

  private static InputException narrowValue(Path file, KeyColumn column, long value) {
    long[] range = narrowRange(column);
    return new InputException("key column " + column.name() + " of " + file + " holds " + value + ", which does not "
        + "fit its Spark type " + column.schemaColumn().sqlType() + " (" + range[0] + " to " + range[1] + "): Spark "
        + "reads it as " + (column.sparkType().equals("byte") ? (byte) value : (short) value)
        + ", its low bits; the value is out of the range of the column's Parquet type (an 8 or 16-bit integer)");
  }

  /**
   * The unscaled value Spark 3.5 reads of a BINARY or FIXED_LEN_BYTE_ARRAY decimal of precision 18 or less (its
   * {@code ParquetRowConverter.binaryToUnscaledLong}, which its vectorized and row readers share): the bytes' low 64
   * bits, sign-extended from bit {@code 8 * length}, a shift distance the JVM takes mod 64. Of up to 8 bytes, and of
   * 16, that is the stored value (when it fits 64 bits); of 9 to 15 bytes only the low {@code 8 * length - 64} bits
   * count. The vectorized reader keeps the low 32 bits of that of a decimal of precision 9 or less.
   */
  private static long sparkUnscaledLong(byte[] bytes, int precision) {
    long unscaled = 0;
    for (byte b : bytes) {
      unscaled = (unscaled << 8) | (b & 0xff);
    }
    int shift = 64 - 8 * bytes.length;
    unscaled = (unscaled << shift) >> shift;
    return precision <= 9 ? (int) unscaled : unscaled;
  }

  private static InputException decimalValue(Path file, KeyColumn column, byte[] stored, long read) {
    int scale = column.schemaColumn().decimalScale();
    return new InputException("key column " + column.name() + " of " + file + " holds "
        + new java.math.BigDecimal(new BigInteger(stored), scale).toPlainString() + " (" + stored.length + " bytes), "
        + "which Spark reads as " + java.math.BigDecimal.valueOf(read, scale).toPlainString() + ": Spark reads a "
        + "decimal of precision 18 or less, here " + column.schemaColumn().sqlType() + ", as a 64-bit value (32-bit up "
        + "to precision 9) sign-extended from bit 8 * length mod 64 of its bytes (of 9 to 15 bytes, from their low 8 "
        + "to 56 bits only), and the tool does not hash a value Spark never reads; build the filter with Spark "
        + "(build-filter)");
  }

  private static InputException legacyCalendarValue(Path file, KeyColumn column, long value) {
    boolean date = column.sparkType().equals("date");
    return new InputException("key column " + column.name() + " of " + file + " holds "
        + (date ? LocalDate.ofEpochDay(value) : Instant.EPOCH.plus(value, ChronoUnit.MICROS)) + ", before "
        + (date ? "1582-10-15" : "1900-01-01T00:00:00Z") + ", in the legacy hybrid Julian/Gregorian calendar (the "
        + "file was written by Spark 2, by Spark 3.0 as INT96, or with spark.sql.parquet.datetimeRebaseModeInWrite or "
        + "int96RebaseModeInWrite LEGACY): Spark rebases such values when it reads them, which the tool does not; "
        + "build the filter with Spark (build-filter)");
  }

  /**
   * The record materializer: converters store each key column's value of the current row, and the end of
   * the row folds them into the key hash in key order. The record object is reused for every row (the
   * reader would take a null record for the end of a row group).
   */
  private static final class KeyHashes extends RecordMaterializer<KeyHashes> {
    private final MessageType projection;
    /** The projected columns, in file order, and the value slot each converter writes. */
    private final Kind[] slotKinds;
    private final KeyColumn[] slotColumns;
    /** Per slot, the values taken: {@link #narrowRange}, from {@link #legacyBefore} (set from the footer). */
    private final long[] lowest;
    private final long[] highest;
    /** The slot of the first value out of its range, else -1; and that value. */
    int refusedSlot = -1;
    long refusedValue;
    /** Per slot, the precision of a BINARY or FIXED_LEN_BYTE_ARRAY decimal Spark reads as a long, else 0. */
    private final int[] longDecimalPrecision;
    /** Of a refused such decimal, its stored bytes ({@link #refusedValue}: what Spark reads). */
    byte[] refusedDecimal;
    /** For each key component, in key order, its slot (a column named twice shares one). */
    private final int[] componentSlots;
    private final long seed;
    private final long[] longs;
    private final double[] doubles;
    private final Binary[] binaries;
    private final boolean[] present;
    private final GroupConverter root;
    boolean isNull;
    long hash;

    KeyHashes(MessageType schema, List<KeyColumn> columns, long seed) {
      this.seed = seed;
      List<Type> projected = new ArrayList<>();
      List<Kind> kinds = new ArrayList<>();
      List<KeyColumn> slotColumns = new ArrayList<>();
      for (Type f : schema.getFields()) {
        for (KeyColumn c : columns) {
          if (c.name().equals(f.getName())) {
            projected.add(f);
            kinds.add(c.kind());
            slotColumns.add(c);
            break;
          }
        }
      }
      this.projection = new MessageType(schema.getName(), projected);
      this.slotKinds = kinds.toArray(new Kind[0]);
      this.slotColumns = slotColumns.toArray(new KeyColumn[0]);
      this.componentSlots = new int[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        componentSlots[i] = projection.getFieldIndex(columns.get(i).name());
      }
      int n = slotKinds.length;
      this.longs = new long[n];
      this.doubles = new double[n];
      this.binaries = new Binary[n];
      this.present = new boolean[n];
      this.lowest = new long[n];
      this.highest = new long[n];
      this.longDecimalPrecision = new int[n];
      for (int slot = 0; slot < n; slot++) {
        int precision = slotKinds[slot] == Kind.DECIMAL_BYTES ? this.slotColumns[slot].schemaColumn().decimalPrecision()
            : Integer.MAX_VALUE;
        longDecimalPrecision[slot] = precision <= 18 ? precision : 0;
      }
      Converter[] converters = new Converter[n];
      for (int slot = 0; slot < n; slot++) {
        converters[slot] = new SlotConverter(slot);
      }
      this.root = new GroupConverter() {
        @Override
        public Converter getConverter(int fieldIndex) {
          return converters[fieldIndex];
        }

        @Override
        public void start() {
          java.util.Arrays.fill(present, false);
        }

        @Override
        public void end() {
          fold();
        }
      };
    }

    ReadSupport<KeyHashes> readSupport() {
      return new ReadSupport<>() {
        @Override
        public ReadContext init(InitContext context) {
          return new ReadContext(projection);
        }

        @Override
        public RecordMaterializer<KeyHashes> prepareForRead(Configuration conf, Map<String, String> metadata,
            MessageType fileSchema, ReadContext context) {
          for (int slot = 0; slot < slotColumns.length; slot++) {
            KeyColumn c = slotColumns[slot];
            long[] range = c.kind() == Kind.INT ? narrowRange(c) : null;
            lowest[slot] = Math.max(range == null ? Long.MIN_VALUE : range[0], legacyBefore(c, metadata));
            highest[slot] = range == null ? Long.MAX_VALUE : range[1];
          }
          return KeyHashes.this;
        }
      };
    }

    private void fold() {
      long h = seed;
      for (int slot : componentSlots) {
        if (!present[slot]) {
          isNull = true;
          return;
        }
        h = foldSlot(slot, h);
        if (refusedSlot >= 0) {
          return;
        }
      }
      isNull = false;
      hash = h;
    }

    private long foldSlot(int slot, long h) {
      switch (slotKinds[slot]) {
        case INT:
        case LONG:
        case BOOLEAN:
          return SparkValueHash.integer(checked(slot, longs[slot]), h);
        case UNSIGNED_INT:
          return SparkValueHash.integer(Integer.toUnsignedLong((int) longs[slot]), h);
        case MILLIS:
          return SparkValueHash.integer(checked(slot, Math.multiplyExact(longs[slot], 1000L)), h);
        case UNSIGNED_LONG:
          return SparkValueHash.decimal(new BigInteger(Long.toUnsignedString(longs[slot])), h);
        case INT96:
          return SparkValueHash.integer(checked(slot, int96Micros(binaries[slot])), h);
        case FLOATING:
          return SparkValueHash.floating(doubles[slot], h);
        case BYTES:
          ByteBuffer b = binaries[slot].toByteBuffer();
          return b.hasArray() ? SparkValueHash.bytes(b.array(), b.arrayOffset() + b.position(), b.remaining(), h)
              : SparkValueHash.bytes(binaries[slot].getBytes(), 0, binaries[slot].length(), h);
        case DECIMAL_BYTES:
          byte[] stored = binaries[slot].getBytes();
          BigInteger unscaled = new BigInteger(stored);
          if (longDecimalPrecision[slot] > 0 && refusedSlot < 0) {
            long read = sparkUnscaledLong(stored, longDecimalPrecision[slot]);
            if (!unscaled.equals(BigInteger.valueOf(read))) { // Spark reads another value: refused
              refusedSlot = slot;
              refusedValue = read;
              refusedDecimal = stored;
            }
          }
          return SparkValueHash.decimal(unscaled, h);
        default:
          throw new IllegalStateException("unhandled column kind " + slotKinds[slot]);
      }
    }

    /** The value, noting it if it is out of its slot's range (Spark would read another value). */
    private long checked(int slot, long value) {
      if ((value < lowest[slot] || value > highest[slot]) && refusedSlot < 0) {
        refusedSlot = slot;
        refusedValue = value;
      }
      return value;
    }

    /** An INT96 timestamp as Spark reads it: little-endian nanoseconds of the day, then the Julian day. */
    private static long int96Micros(Binary value) {
      ByteBuffer b = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      long nanosOfDay = b.getLong();
      int julianDay = b.getInt();
      return Math.addExact(Math.multiplyExact(julianDay - JULIAN_DAY_OF_EPOCH, MICROS_PER_DAY), nanosOfDay / 1000);
    }

    @Override
    public KeyHashes getCurrentRecord() {
      return this;
    }

    @Override
    public GroupConverter getRootConverter() {
      return root;
    }

    private final class SlotConverter extends PrimitiveConverter {
      private final int slot;

      SlotConverter(int slot) {
        this.slot = slot;
      }

      @Override
      public void addInt(int value) {
        longs[slot] = value;
        present[slot] = true;
      }

      @Override
      public void addLong(long value) {
        longs[slot] = value;
        present[slot] = true;
      }

      @Override
      public void addBoolean(boolean value) {
        longs[slot] = value ? 1 : 0;
        present[slot] = true;
      }

      @Override
      public void addFloat(float value) {
        doubles[slot] = value;
        present[slot] = true;
      }

      @Override
      public void addDouble(double value) {
        doubles[slot] = value;
        present[slot] = true;
      }

      @Override
      public void addBinary(Binary value) {
        binaries[slot] = value;
        present[slot] = true;
      }
    }
  }
}
