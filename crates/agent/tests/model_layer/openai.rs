use actionbook_agent::model::{Message, ModelError, ModelRequest, Provider, ToolSpec, connect};
use serde_json::json;

use crate::server::{MockServer, Reply};
use crate::test_config;

fn tool_call_reply() -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-1",
            "choices": [{
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [{
                        "id": "call_abc",
                        "type": "function",
                        "function": {"name": "open_page", "arguments": "{\"url\":\"https://example.com\"}"}
                    }]
                }
            }],
            "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}
        }),
    )
}

fn final_reply() -> Reply {
    Reply::json(
        200,
        json!({
            "choices": [{"message": {"role": "assistant", "content": "The page is open."}}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 5}
        }),
    )
}

fn open_page_tool() -> ToolSpec {
    ToolSpec {
        name: "open_page".into(),
        description: "Open a page".into(),
        input_schema: json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
    }
}

#[tokio::test]
async fn tool_call_round_trip() {
    let server = MockServer::start(vec![tool_call_reply(), final_reply()]).await;
    let model = connect(&test_config(
        Provider::OpenAi,
        &server.base_url,
        Some("sk-test-123"),
    ))
    .expect("connect");
    assert_eq!(model.name(), "test-model");

    let mut request = ModelRequest::new(vec![
        Message::system("You drive a browser."),
        Message::user("Open example.com"),
    ]);
    request.tools = vec![open_page_tool()];
    let answer = model.complete(&request).await.expect("first answer");
    assert_eq!(answer.text, None);
    assert_eq!(answer.tool_calls.len(), 1);
    assert_eq!(answer.tool_calls[0].id, "call_abc");
    assert_eq!(answer.tool_calls[0].name, "open_page");
    assert_eq!(
        answer.tool_calls[0].arguments,
        json!({"url": "https://example.com"})
    );
    assert_eq!(answer.usage.input_tokens, 42);
    assert_eq!(answer.usage.output_tokens, 7);

    request.messages.push(answer.to_message());
    request.messages.push(Message::tool_result(
        "call_abc",
        "opened, title: Example Domain",
    ));
    let answer = model.complete(&request).await.expect("second answer");
    assert_eq!(answer.text.as_deref(), Some("The page is open."));
    assert!(answer.tool_calls.is_empty());

    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].method, "POST");
    assert_eq!(sent[0].path, "/chat/completions");
    assert_eq!(sent[0].header("authorization"), Some("Bearer sk-test-123"));
    let body = &sent[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "open_page",
                "description": "Open a page",
                "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
            }
        }])
    );
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You drive a browser."})
    );
    assert!(body.get("response_format").is_none());

    let messages = &sent[1].body["messages"];
    assert_eq!(
        messages[2],
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{
                "id": "call_abc",
                "type": "function",
                "function": {"name": "open_page", "arguments": "{\"url\":\"https://example.com\"}"}
            }]
        })
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "content": "opened, title: Example Domain", "tool_call_id": "call_abc"})
    );
}

#[tokio::test]
async fn no_auth_header_without_key() {
    let server = MockServer::start(vec![final_reply()]).await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let mut request = ModelRequest::new(vec![Message::user("hi")]);
    request.max_tokens = Some(100);
    model.complete(&request).await.expect("answer");
    let sent = server.requests();
    assert_eq!(sent[0].header("authorization"), None);
    assert!(sent[0].body.get("tools").is_none());
    assert!(sent[0].body.get("tool_choice").is_none());
    assert_eq!(sent[0].body["max_tokens"], 100);
}

#[tokio::test]
async fn json_schema_mode() {
    let server = MockServer::start(vec![Reply::json(
        200,
        json!({
            "choices": [{"message": {"role": "assistant", "content": "{\"title\":\"Example\",\"links\":3}"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 4}
        }),
    )])
    .await;
    let model = connect(&test_config(
        Provider::DeepSeek,
        &server.base_url,
        Some("k"),
    ))
    .expect("connect");
    let schema = json!({"type": "object", "properties": {"title": {"type": "string"}, "links": {"type": "integer"}}});
    let mut request = ModelRequest::new(vec![Message::user("Summarize")]);
    request.json_schema = Some(("page_summary".into(), schema.clone()));
    let answer = model.complete(&request).await.expect("answer");
    assert_eq!(answer.json, Some(json!({"title": "Example", "links": 3})));
    assert_eq!(answer.usage.output_tokens, 4);

    let sent = server.requests();
    assert_eq!(
        sent[0].body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "page_summary", "schema": schema, "strict": false}})
    );
}

#[tokio::test]
async fn json_mode_answer_that_is_not_json_is_bad_answer() {
    let server = MockServer::start(vec![Reply::json(
        200,
        json!({"choices": [{"message": {"content": "Sure! The title is Example."}}]}),
    )])
    .await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let mut request = ModelRequest::new(vec![Message::user("Summarize")]);
    request.json_schema = Some(("s".into(), json!({"type": "object"})));
    let err = model.complete(&request).await.expect_err("not JSON");
    assert!(matches!(err, ModelError::BadAnswer { .. }), "{err:?}");
}

#[tokio::test]
async fn arguments_that_do_not_parse_are_bad_answer() {
    let server = MockServer::start(vec![Reply::json(
        200,
        json!({"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "open_page", "arguments": "{\"url\": "}}]}}]}),
    )])
    .await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let err = model
        .complete(&ModelRequest::new(vec![Message::user("go")]))
        .await
        .expect_err("bad arguments");
    match err {
        ModelError::BadAnswer { message } => assert!(message.contains("open_page"), "{message}"),
        other => panic!("expected BadAnswer, got {other:?}"),
    }
}

#[tokio::test]
async fn an_image_goes_as_a_data_url_part_after_the_text() {
    let server = MockServer::start(vec![final_reply()]).await;
    let model = connect(&test_config(Provider::OpenAi, &server.base_url, None)).expect("connect");
    let image = actionbook_agent::model::Image {
        media_type: "image/jpeg".into(),
        base64: "/9j/AAAA".into(),
    };
    let request = ModelRequest::new(vec![
        Message::system("s"),
        Message::user("look").with_image(image),
    ]);
    model.complete(&request).await.expect("answer");
    let sent = server.requests();
    assert_eq!(sent[0].body["messages"][0]["content"], "s");
    assert_eq!(
        sent[0].body["messages"][1]["content"],
        json!([
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/AAAA"}}
        ])
    );
}
