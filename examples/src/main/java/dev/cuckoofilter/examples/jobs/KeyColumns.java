package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks the key columns a job was given against a dataset, and against the key columns of a stored
 * filter, so that a wrong name or type is reported before any Spark job runs, naming the column, the
 * dataset and both types.
 */
final class KeyColumns {
  private KeyColumns() {}

  /**
   * The fields of the columns {@code names} of {@code data}, resolved as Spark resolves column names.
   *
   * @param what the dataset, for messages (the option and its value)
   * @throws InputException if a column does not exist or its type cannot be a filter key
   */
  static List<StructField> resolve(Dataset<Row> data, List<String> names, String what) {
    List<StructField> fields = new ArrayList<>();
    for (String name : names) {
      StructField field;
      try {
        field = data.select(functions.col(name)).schema().fields()[0];
      } catch (Exception e) {
        if (e instanceof AnalysisException) {
          throw new InputException(what + " has no column " + name + "; its columns are: "
              + describe(List.of(data.schema().fields())), e);
        }
        throw e;
      }
      if (!KeyTypes.supported(field.dataType())) {
        throw new InputException("key column " + name + " of " + what + " has type "
            + field.dataType().simpleString() + ", which cannot be a filter key; keys can be "
            + KeyTypes.SUPPORTED_TYPES);
      }
      fields.add(field);
    }
    return fields;
  }

  /**
   * Requires each of {@code names} (resolved by {@link #resolve}) to be a column of {@code data}, not a field of a
   * struct column: a filter location records its key columns by name, and updates and probes of the location read
   * the columns of those names, so a field {@code s.x} would be recorded as {@code x} and another column read.
   *
   * @throws InputException naming the first key that is not a column
   */
  static void requireColumns(Dataset<Row> data, List<String> names, String what) {
    for (String name : names) {
      if (columnName(data, name) == null) {
        throw new InputException("key " + name + " of " + what + " is not a column but a field of a struct column, and "
            + "a filter location records its key columns by name (this one as " + resolve(data, List.of(name), what)
            .get(0).name() + "), which updates and prune-join read; write the dataset with the field as a column of its "
            + "own and build from that");
      }
    }
  }

  /**
   * {@link #resolve} and {@link #requireColumns}: the key columns as a filter location records them, under the
   * dataset's own names (Spark resolves {@code ID} to the column {@code id} unless {@code spark.sql.caseSensitive}), so
   * that every spelling of the keys, and {@code cuckoo build}, which reads the names from the files, record the same.
   */
  static List<StructField> columns(Dataset<Row> data, List<String> names, String what) {
    List<StructField> fields = resolve(data, names, what);
    requireColumns(data, names, what);
    List<StructField> columns = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      StructField f = fields.get(i);
      columns.add(new StructField(columnName(data, names.get(i)), f.dataType(), f.nullable(), f.metadata()));
    }
    return columns;
  }

  /**
   * The names of the columns the key expressions {@code leftKeys} and {@code rightKeys} (resolved by
   * {@link #resolve}) name, if each pair names columns (not struct fields) of the same name on both sides, as Spark
   * compares names (ignoring case unless {@code spark.sql.caseSensitive}): the names a USING join takes (it takes
   * names, not expressions such as {@code `cust.id`}; the left side's); null otherwise.
   */
  static List<String> commonColumnNames(Dataset<Row> left, List<String> leftKeys, Dataset<Row> right,
      List<String> rightKeys) {
    boolean caseSensitive = left.sparkSession().sessionState().conf().caseSensitiveAnalysis();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < leftKeys.size(); i++) {
      String name = columnName(left, leftKeys.get(i));
      String rightName = columnName(right, rightKeys.get(i));
      if (name == null || rightName == null
          || !(caseSensitive ? name.equals(rightName) : name.equalsIgnoreCase(rightName))) {
        return null;
      }
      names.add(name);
    }
    return names;
  }

  /** The name of the column of {@code data} the expression {@code key} names, or null if it is a struct field. */
  private static String columnName(Dataset<Row> data, String key) {
    Attribute resolved = list(data.select(functions.col(key)).queryExecution().analyzed().output()).get(0);
    for (Attribute column : list(data.queryExecution().analyzed().output())) {
      if (column.exprId().equals(resolved.exprId())) {
        return column.name();
      }
    }
    return null;
  }

  /**
   * {@link #resolve} and requires each column to hash like the stored filter's key column in the same
   * position (int and long alike, float and double alike, decimals of the same scale).
   *
   * @param location the filter's location, for messages
   * @throws InputException naming the first column whose type does not match
   */
  static List<StructField> requireMatching(Dataset<Row> data, List<String> names, List<StructField> filterKeys,
      String what, String location) {
    if (names.size() != filterKeys.size()) {
      throw new InputException(what + ": " + names.size() + " key column(s) " + names + " given, but the filter at "
          + location + " has " + filterKeys.size() + " (" + describe(filterKeys) + ")");
    }
    List<StructField> fields = resolve(data, names, what);
    for (int i = 0; i < fields.size(); i++) {
      StructField actual = fields.get(i);
      StructField expected = filterKeys.get(i);
      if (!KeyTypes.category(actual.dataType()).equals(KeyTypes.category(expected.dataType()))) {
        throw new InputException("key column " + actual.name() + " of " + what + " is "
            + actual.dataType().simpleString() + ", but the filter at " + location + " was built on "
            + expected.name() + " " + expected.dataType().simpleString() + " (" + KeyTypes.category(actual.dataType())
            + " values do not hash like " + KeyTypes.category(expected.dataType()) + " values)");
      }
    }
    return fields;
  }

  /**
   * Refuses keys of the dataset a filter was built from (prune-join's --join-with) that name the filter's key columns
   * in another order: a composite key is hashed in the filter's order, and the probe pairs each key with the filter's
   * key column in its position, so keys (id, region) of a filter of (region, id) would probe other keys than it holds
   * and drop matching rows, while the join itself, by name, matches them. Keys of other names are taken as given.
   *
   * @throws InputException naming the first key in another position and the filter's order
   */
  static void requireFilterOrder(Dataset<Row> data, List<String> names, List<StructField> filterKeys, String what,
      String location) {
    boolean caseSensitive = data.sparkSession().sessionState().conf().caseSensitiveAnalysis();
    for (int i = 0; i < names.size(); i++) {
      String name = columnName(data, names.get(i));
      if (name == null || sameName(name, filterKeys.get(i).name(), caseSensitive)) {
        continue; // a struct field, or the filter's column of this position
      }
      for (int j = 0; j < filterKeys.size(); j++) {
        if (sameName(name, filterKeys.get(j).name(), caseSensitive)) {
          throw new InputException(what + ": key column " + (i + 1) + " (" + names.get(i) + ") is the filter's key "
              + "column " + (j + 1) + ": the filter at " + location + " holds keys of (" + describe(filterKeys)
              + "), in this order, and is probed with the keys in that order; give --keys (and --join-keys) in the "
              + "filter's key order");
        }
      }
    }
  }

  private static boolean sameName(String a, String b, boolean caseSensitive) {
    return caseSensitive ? a.equals(b) : a.equalsIgnoreCase(b);
  }

  /**
   * The names of {@code fields} as column expressions that name exactly these top-level columns: quoted, so that
   * a stored name with a dot or a backtick ({@code cust.id}) is that column, not a struct field of another column
   * nor a syntax error (as {@code FilterUpdater} resolves them).
   */
  static List<String> quotedNames(List<StructField> fields) {
    return fields.stream().map(f -> "`" + f.name().replace("`", "``") + "`").toList();
  }

  /** {@code name type, ...}, with Spark SQL's type names. */
  static String describe(List<StructField> fields) {
    StringBuilder sb = new StringBuilder();
    for (StructField f : fields) {
      sb.append(sb.length() == 0 ? "" : ", ").append(f.name()).append(' ').append(f.dataType().simpleString());
    }
    return sb.toString();
  }

  /** The key columns as the filter store records them: the JSON of their schema. */
  static String json(List<StructField> fields) {
    return new StructType(fields.toArray(new StructField[0])).json();
  }
}
