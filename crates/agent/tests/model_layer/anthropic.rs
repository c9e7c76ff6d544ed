use actionbook_agent::model::{Message, ModelRequest, Provider, ToolCall, ToolSpec, connect};
use serde_json::json;

use crate::server::{MockServer, Reply};
use crate::test_config;

#[tokio::test]
async fn tool_use_round_trip() {
    let server = MockServer::start(vec![
        Reply::json(
            200,
            json!({
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Opening both."},
                    {"type": "tool_use", "id": "toolu_1", "name": "open_page", "input": {"url": "https://a.example"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "open_page", "input": {"url": "https://b.example"}}
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 100, "output_tokens": 30}
            }),
        ),
        Reply::json(
            200,
            json!({
                "content": [{"type": "thinking", "thinking": "..."}, {"type": "text", "text": "Done."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 150, "output_tokens": 2}
            }),
        ),
    ])
    .await;
    let model = connect(&test_config(
        Provider::Anthropic,
        &server.base_url,
        Some("sk-ant-xyz"),
    ))
    .expect("connect");

    let mut request = ModelRequest::new(vec![
        Message::system("You drive a browser."),
        Message::system("Be brief."),
        Message::user("Open a and b"),
    ]);
    request.tools = vec![ToolSpec {
        name: "open_page".into(),
        description: "Open a page".into(),
        input_schema: json!({"type": "object", "properties": {"url": {"type": "string"}}}),
    }];
    let answer = model.complete(&request).await.expect("first answer");
    assert_eq!(answer.text.as_deref(), Some("Opening both."));
    assert_eq!(
        answer.tool_calls,
        vec![
            ToolCall {
                id: "toolu_1".into(),
                name: "open_page".into(),
                arguments: json!({"url": "https://a.example"})
            },
            ToolCall {
                id: "toolu_2".into(),
                name: "open_page".into(),
                arguments: json!({"url": "https://b.example"})
            },
        ]
    );
    assert_eq!(
        (answer.usage.input_tokens, answer.usage.output_tokens),
        (100, 30)
    );

    request.messages.push(answer.to_message());
    request
        .messages
        .push(Message::tool_result("toolu_1", "opened a"));
    request
        .messages
        .push(Message::tool_result("toolu_2", "opened b"));
    let answer = model.complete(&request).await.expect("second answer");
    assert_eq!(answer.text.as_deref(), Some("Done."));
    assert!(answer.tool_calls.is_empty());

    let sent = server.requests();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].path, "/v1/messages");
    assert_eq!(sent[0].header("x-api-key"), Some("sk-ant-xyz"));
    assert_eq!(sent[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent[0].header("authorization"), None);
    let body = &sent[0].body;
    assert_eq!(body["system"], "You drive a browser.\n\nBe brief.");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(
        body["tools"],
        json!([{"name": "open_page", "description": "Open a page",
                "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}}}])
    );
    assert!(body.get("tool_choice").is_none());
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "Open a and b"}]}])
    );

    assert_eq!(
        sent[1].body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Open a and b"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Opening both."},
                {"type": "tool_use", "id": "toolu_1", "name": "open_page", "input": {"url": "https://a.example"}},
                {"type": "tool_use", "id": "toolu_2", "name": "open_page", "input": {"url": "https://b.example"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "opened a"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "opened b"}
            ]}
        ])
    );
}

#[tokio::test]
async fn json_schema_as_forced_tool() {
    let server = MockServer::start(vec![Reply::json(
        200,
        json!({
            "content": [{"type": "tool_use", "id": "toolu_9", "name": "page_summary",
                         "input": {"title": "Example", "links": 3}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 20, "output_tokens": 9}
        }),
    )])
    .await;
    let model =
        connect(&test_config(Provider::Anthropic, &server.base_url, None)).expect("connect");
    let schema = json!({"type": "object", "properties": {"title": {"type": "string"}, "links": {"type": "integer"}}});
    let mut request = ModelRequest::new(vec![Message::user("Summarize")]);
    request.json_schema = Some(("page_summary".into(), schema.clone()));
    request.max_tokens = Some(256);
    let answer = model.complete(&request).await.expect("answer");
    assert_eq!(answer.json, Some(json!({"title": "Example", "links": 3})));
    assert!(
        answer.tool_calls.is_empty(),
        "the schema tool is not a real tool call"
    );
    assert_eq!(answer.usage.output_tokens, 9);

    let sent = server.requests();
    assert_eq!(sent[0].header("x-api-key"), None);
    let body = &sent[0].body;
    assert_eq!(body["max_tokens"], 256);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "page_summary"})
    );
    assert_eq!(body["tools"][0]["name"], "page_summary");
    assert_eq!(body["tools"][0]["input_schema"], schema);
}

#[tokio::test]
async fn an_image_goes_as_a_base64_block_after_the_text() {
    let server = MockServer::start(vec![Reply::json(
        200,
        json!({ "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1, "output_tokens": 1} }),
    )])
    .await;
    let model = connect(&test_config(
        Provider::Anthropic,
        &server.base_url,
        Some("k"),
    ))
    .expect("connect");
    let image = actionbook_agent::model::Image {
        media_type: "image/jpeg".into(),
        base64: "/9j/AAAA".into(),
    };
    let request = ModelRequest::new(vec![Message::user("look").with_image(image)]);
    model.complete(&request).await.expect("answer");
    let sent = server.requests();
    assert_eq!(
        sent[0].body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/AAAA"}}
        ])
    );
}
