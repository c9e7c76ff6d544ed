use std::time::Instant;

use actionbook_agent::model::{Message, ModelError, ModelRequest, Provider, connect};
use serde_json::json;

use crate::server::{MockServer, Reply};
use crate::test_config;

fn ok_reply() -> Reply {
    Reply::json(200, json!({"choices": [{"message": {"content": "ok"}}]}))
}

fn hello() -> ModelRequest {
    ModelRequest::new(vec![Message::user("hello")])
}

#[tokio::test]
async fn rate_limit_then_success() {
    let server = MockServer::start(vec![
        Reply::json(429, json!({"error": {"message": "slow down"}})).header("retry-after", "0"),
        ok_reply(),
    ])
    .await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let answer = model.complete(&hello()).await.expect("retried to success");
    assert_eq!(answer.text.as_deref(), Some("ok"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn rate_limit_exhausted() {
    let limited = || Reply::json(429, json!({})).header("retry-after", "0");
    let server = MockServer::start(vec![limited(), limited()]).await;
    let mut config = test_config(Provider::OpenAi, &server.base_url, None);
    config.max_retries = 1;
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("429");
    assert_eq!(
        err,
        ModelError::RateLimited {
            attempts: 2,
            retry_after_ms: Some(0)
        }
    );
    assert!(err.retryable());
}

#[tokio::test]
async fn server_errors_exhaust_retries() {
    let failing = || Reply::json(500, json!({"error": {"message": "boom"}}));
    let server = MockServer::start(vec![failing(), failing(), failing(), ok_reply()]).await;
    let mut config = test_config(Provider::Anthropic, &server.base_url, None);
    config.max_retries = 2;
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("500");
    assert_eq!(
        err,
        ModelError::Server {
            status: 500,
            attempts: 3
        }
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn unauthorized_is_bad_key_without_the_key() {
    let key = "sk-very-secret-key-0042";
    // A provider that echoes the key must not leak it either.
    let server = MockServer::start(vec![Reply::json(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {key}")}}),
    )])
    .await;
    let config = test_config(Provider::OpenAi, &server.base_url, Some(key));
    assert!(!format!("{config:?}").contains(key));
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("401");
    assert_eq!(err, ModelError::BadKey { status: 401 });
    assert!(!err.to_string().contains(key));
    assert!(!format!("{err:?}").contains(key));
    assert!(!err.retryable());
}

#[tokio::test]
async fn refusal_message_is_scrubbed_of_the_key() {
    let key = "sk-echoed-key-77";
    let server = MockServer::start(vec![Reply::json(
        400,
        json!({"error": {"message": format!("content policy violation (key {key})"), "type": "invalid_request_error"}}),
    )])
    .await;
    let config = test_config(Provider::OpenAi, &server.base_url, Some(key));
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("400");
    match &err {
        ModelError::Refused {
            status: 400,
            message,
        } => {
            assert!(message.contains("content policy violation"), "{message}");
        }
        other => panic!("expected Refused, got {other:?}"),
    }
    assert!(!err.to_string().contains(key));
}

#[tokio::test]
async fn not_found_is_unknown_model() {
    let server = MockServer::start(vec![
        Reply::json(404, json!({"error": {"message": "The model `test-model` does not exist", "code": "model_not_found"}})),
        Reply::json(400, json!({"error": "model 'test-model' not found, try pulling it first"})),
    ])
    .await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    for _ in 0..2 {
        let err = model.complete(&hello()).await.expect_err("unknown model");
        assert_eq!(
            err,
            ModelError::UnknownModel {
                model: "test-model".into()
            }
        );
    }
}

#[tokio::test]
async fn non_json_body_is_bad_answer() {
    let server = MockServer::start(vec![Reply::raw(200, "<html>proxy login</html>")]).await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let err = model.complete(&hello()).await.expect_err("not JSON");
    match err {
        ModelError::BadAnswer { message } => assert!(message.contains("<html>"), "{message}"),
        other => panic!("expected BadAnswer, got {other:?}"),
    }
}

#[tokio::test]
async fn silent_server_times_out() {
    let server = MockServer::start(vec![Reply::hang()]).await;
    let mut config = test_config(Provider::OpenAi, &server.base_url, None);
    config.timeout_ms = 300;
    let started = Instant::now();
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("timeout");
    assert_eq!(err, ModelError::Timeout { ms: 300 });
    assert!(
        started.elapsed().as_millis() < 3_000,
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1, "timeouts are not retried");
}

#[tokio::test]
async fn connection_refused_is_retried_then_transport() {
    // Bind then drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut config = test_config(Provider::OpenAi, &format!("http://127.0.0.1:{port}"), None);
    config.max_retries = 1;
    let err = connect(&config)
        .expect("connect")
        .complete(&hello())
        .await
        .expect_err("refused");
    assert!(matches!(err, ModelError::Transport { .. }), "{err:?}");
    assert!(err.retryable());
}
