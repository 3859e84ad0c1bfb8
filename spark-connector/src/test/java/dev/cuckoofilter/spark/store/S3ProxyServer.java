package dev.cuckoofilter.spark.store;

import com.amazonaws.auth.AWSStaticCredentialsProvider;
import com.amazonaws.auth.BasicAWSCredentials;
import com.amazonaws.client.builder.AwsClientBuilder;
import com.amazonaws.services.s3.AmazonS3;
import com.amazonaws.services.s3.AmazonS3ClientBuilder;
import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * S3Proxy (in-memory "transient" storage, AWS signature checks on) as a separate process on 127.0.0.1:
 * it cannot share the test JVM, whose Jetty and Jackson versions are Spark's. Public for the examples' tests
 * of the cuckoo tool on S3.
 */
public final class S3ProxyServer implements AutoCloseable {
  public static final String ACCESS_KEY = "store-test-access";
  public static final String SECRET_KEY = "store-test-secret";
  private static final long START_TIMEOUT_MS = 60_000;

  private final Process process;
  private final int port;
  private final File log;
  private final Thread killOnExit;

  private S3ProxyServer(Process process, int port, File log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.killOnExit = new Thread(process::destroyForcibly, "stop-s3proxy");
    Runtime.getRuntime().addShutdownHook(killOnExit); // should a test JVM end without @AfterAll
  }

  public static S3ProxyServer start(File workDir) throws IOException, InterruptedException {
    File jar = jar();
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", ACCESS_KEY);
    p.setProperty("s3proxy.credential", SECRET_KEY);
    p.setProperty("jclouds.provider", "transient");
    p.setProperty("jclouds.identity", ACCESS_KEY);
    p.setProperty("jclouds.credential", SECRET_KEY);
    File properties = new File(workDir, "s3proxy.properties");
    try (Writer w = new FileWriter(properties)) {
      p.store(w, "S3Proxy for the filter store tests");
    }
    File log = new File(workDir, "s3proxy.log");
    Process process = new ProcessBuilder(new File(System.getProperty("java.home"), "bin/java").getPath(), "-Xmx256m",
        "-jar", jar.getPath(), "--properties", properties.getPath())
        .redirectErrorStream(true).redirectOutput(log).start();
    S3ProxyServer server = new S3ProxyServer(process, port, log);
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
    while (true) {
      if (!process.isAlive()) {
        server.close();
        throw new IllegalStateException("S3Proxy exited with " + process.exitValue() + ": " + server.logText());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        break;
      } catch (IOException notYet) {
        if (System.currentTimeMillis() > deadline) {
          server.close();
          throw new IllegalStateException("S3Proxy did not listen on 127.0.0.1:" + port + " within "
              + START_TIMEOUT_MS + " ms: " + server.logText());
        }
        Thread.sleep(100);
      }
    }
    return server;
  }

  /** The jar Maven copied into target/ (see the pom), else the local repository's copy. */
  private static File jar() {
    String configured = System.getProperty("s3proxy.jar");
    for (String candidate : List.of(configured == null ? "" : configured,
        System.getProperty("user.home") + "/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar")) {
      File f = new File(candidate);
      if (!candidate.isEmpty() && f.isFile()) {
        return f;
      }
    }
    throw new IllegalStateException("the S3Proxy jar is missing (system property s3proxy.jar = " + configured
        + "); run the tests through Maven, which copies it to target/s3proxy/");
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** A plain AWS SDK client, as an administrator would use; the caller shuts it down. */
  public AmazonS3 adminClient() {
    return AmazonS3ClientBuilder.standard()
        .withEndpointConfiguration(new AwsClientBuilder.EndpointConfiguration(endpoint(), "us-east-1"))
        .withPathStyleAccessEnabled(true)
        .withCredentials(new AWSStaticCredentialsProvider(new BasicAWSCredentials(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /** Creates a bucket through the AWS SDK, as an administrator would. */
  public void createBucket(String bucket) {
    AmazonS3 s3 = adminClient();
    try {
      s3.createBucket(bucket);
    } finally {
      s3.shutdown();
    }
  }

  /** An S3A client configuration for this server: path-style access, no SSL, static keys, few retries. */
  public Configuration s3aConf() {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.endpoint", endpoint());
    conf.set("fs.s3a.endpoint.region", "us-east-1");
    conf.setBoolean("fs.s3a.path.style.access", true);
    conf.setBoolean("fs.s3a.connection.ssl.enabled", false);
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", ACCESS_KEY);
    conf.set("fs.s3a.secret.key", SECRET_KEY);
    conf.setInt("fs.s3a.attempts.maximum", 2);
    conf.setInt("fs.s3a.retry.limit", 2);
    conf.set("fs.s3a.retry.interval", "50ms");
    conf.setInt("fs.s3a.connection.establish.timeout", 5000);
    conf.setInt("fs.s3a.connection.timeout", 20000);
    return conf;
  }

  private String logText() {
    try {
      return Files.readString(log.toPath());
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }
}
