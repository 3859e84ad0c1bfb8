package dev.cuckoofilter.spark.store;

import static dev.cuckoofilter.spark.store.TestFilters.metadata;
import static dev.cuckoofilter.spark.store.TestFilters.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.model.AmazonS3Exception;
import com.amazonaws.services.s3.model.PutObjectRequest;
import dev.cuckoofilter.core.CuckooFilter;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.DefaultS3ClientFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * S3 answers 409 ConditionalRequestConflict to a conditional PUT while another conditional PUT of the same key
 * is in flight, including this writer's own first attempt that the SDK retried after a timeout. S3Proxy never
 * answers 409, so a client factory (fs.s3a.s3.client.factory.impl, which S3ConditionalPut honours) plays S3:
 * the conditional PUT of a commit record is answered 409 while the request still lands, a moment later.
 */
class S3ConditionalConflictTest {
  static final String BUCKET = "filter-store-409";
  @TempDir
  static File dir;
  static S3ProxyServer s3;

  /** The PUT that S3 is still processing when the 409 is returned, completed by the test afterwards. */
  static final AtomicReference<Runnable> IN_FLIGHT = new AtomicReference<>();
  static final AtomicInteger CONFLICTS_TO_ANSWER = new AtomicInteger();

  /** Whose conditional PUT is in flight when S3 answers 409. */
  enum InFlight { OWN, OTHER_WRITER, STUCK }

  static volatile InFlight mode;

  public static final class InFlightFactory extends DefaultS3ClientFactory {
    @Override
    public AmazonS3 createS3Client(URI uri, S3ClientCreationParameters parameters) throws IOException {
      AmazonS3 real = super.createS3Client(uri, parameters);
      return (AmazonS3) Proxy.newProxyInstance(AmazonS3.class.getClassLoader(), new Class<?>[] {AmazonS3.class},
          (proxy, method, args) -> {
            if (method.getName().equals("putObject") && args.length == 1 && args[0] instanceof PutObjectRequest
                && ((PutObjectRequest) args[0]).getCustomRequestHeaders() != null
                && "*".equals(((PutObjectRequest) args[0]).getCustomRequestHeaders().get("If-None-Match"))) {
              Runnable landed = IN_FLIGHT.getAndSet(null);
              if (landed != null && mode != InFlight.STUCK) {
                landed.run(); // the write in flight completed before this attempt
              } else if (landed != null || CONFLICTS_TO_ANSWER.getAndDecrement() > 0) {
                PutObjectRequest put = (PutObjectRequest) args[0];
                String body = new String(put.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (mode == InFlight.OTHER_WRITER) {
                  java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"commitId\" : \"([^\"]+)\"")
                      .matcher(body);
                  m.find();
                  body = body.replace(m.group(1), java.util.UUID.randomUUID().toString());
                }
                String key = put.getKey();
                String landing = body;
                IN_FLIGHT.set(() -> {
                  AmazonS3 admin = s3.adminClient();
                  admin.putObject(BUCKET, key, landing);
                  admin.shutdown();
                });
                AmazonS3Exception e = new AmazonS3Exception("A conflicting conditional operation is currently in "
                    + "progress against this resource. Please try again.");
                e.setStatusCode(409);
                e.setErrorCode("ConditionalRequestConflict");
                throw e;
              }
            }
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }
  }

  static FilterStore store(String name) throws IOException {
    Configuration conf = s3.s3aConf();
    conf.set("fs.s3a.s3.client.factory.impl", InFlightFactory.class.getName());
    return FilterStore.open("s3a://" + BUCKET + "/lake/" + name + "-" + System.nanoTime(), conf);
  }

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyServer.start(dir);
    s3.createBucket(BUCKET);
  }

  @AfterAll
  static void stopS3() throws IOException {
    FileSystem.closeAll();
    if (s3 != null) {
      s3.close();
    }
  }

  /**
   * The SDK's retry of this writer's own commit gets 409 because the first attempt is still in flight; the
   * first attempt then lands. The publish must succeed (the record is this writer's) and must not delete the
   * data file it names: the location's latest version would be unreadable.
   */
  @Test
  void a409ForTheWritersOwnInFlightCommitEndsInThePublishedVersion() throws Exception {
    FilterStore store = store("own");
    CuckooFilter v1 = range(0, 500);
    store.publish(v1, metadata(v1, FilterMetadata.NO_PARENT));
    CuckooFilter v2 = range(0, 1000);
    mode = InFlight.OWN;
    CONFLICTS_TO_ANSWER.set(1);
    try {
      store.publish(v2, metadata(v2, 1));
    } catch (IOException e) {
      System.out.println("publish threw " + e);
    }
    Runnable stillInFlight = IN_FLIGHT.getAndSet(null);
    if (stillInFlight != null) {
      stillInFlight.run(); // the first attempt completes
    }
    // Version 2 exists now (its commit record is this writer's), so it must be readable.
    assertEquals(2, store.latest().orElseThrow().version());
    assertEquals(v2, store.readLatest().filter());
  }

  /** Another writer's commit was in flight and lands: a conflict naming the version it published. */
  @Test
  void a409ForAnotherWritersCommitIsAConflictNamingTheWinningVersion() throws Exception {
    FilterStore store = store("other");
    CuckooFilter v1 = range(0, 500);
    store.publish(v1, metadata(v1, FilterMetadata.NO_PARENT));
    CuckooFilter v2 = range(0, 1000);
    mode = InFlight.OTHER_WRITER;
    CONFLICTS_TO_ANSWER.set(1);
    FilterConflictException e = assertThrows(FilterConflictException.class, () -> store.publish(v2, metadata(v2, 1)));
    Runnable stillInFlight = IN_FLIGHT.getAndSet(null);
    if (stillInFlight != null) {
      stillInFlight.run();
    }
    System.out.println("conflict: " + e.getMessage());
    assertEquals(2, e.version(), e.getMessage());
  }

  /** S3 keeps answering 409: the outcome is unknown, so an IOException that leaves the data file. */
  @Test
  void a409ThatPersistsIsAnUnknownOutcomeThatKeepsTheDataFile() throws Exception {
    FilterStore store = store("stuck");
    CuckooFilter v1 = range(0, 500);
    store.publish(v1, metadata(v1, FilterMetadata.NO_PARENT));
    CuckooFilter v2 = range(0, 1000);
    mode = InFlight.STUCK;
    CONFLICTS_TO_ANSWER.set(100);
    IOException e = assertThrows(IOException.class, () -> store.publish(v2, metadata(v2, 1)));
    CONFLICTS_TO_ANSWER.set(0);
    IN_FLIGHT.set(null);
    System.out.println("stuck: " + e.getMessage());
    org.junit.jupiter.api.Assertions.assertFalse(e instanceof FilterConflictException, e.getMessage());
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("409"), e.getMessage());
    assertEquals(2, store.fileSystem().listStatus(store.layout().data).length, "the data file of the attempt stays");
  }
}
