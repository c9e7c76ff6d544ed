use std::collections::HashMap;

use actionbook_agent::model::{LlmSection, ModelConfig, ModelError, Provider, Secret, connect};

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn key_of(config: &ModelConfig) -> Option<&str> {
    config.api_key.as_ref().map(Secret::expose)
}

#[test]
fn defaults_to_openai_preset() {
    let config = ModelConfig::resolve(&env_of(&[]), None).expect("resolve");
    assert_eq!(config.provider, Provider::OpenAi);
    assert_eq!(config.base_url, "https://api.openai.com/v1");
    assert_eq!(config.model, "gpt-4o-mini");
    assert_eq!(config.api_key, None);
    assert_eq!(config.timeout_ms, 120_000);
    assert_eq!(config.max_retries, 3);
}

#[test]
fn presets_per_provider() {
    let cases = [
        (
            "anthropic",
            "https://api.anthropic.com",
            "claude-3-5-haiku-latest",
        ),
        (
            "gemini",
            "https://generativelanguage.googleapis.com/v1beta/openai",
            "gemini-2.0-flash",
        ),
        ("deepseek", "https://api.deepseek.com/v1", "deepseek-chat"),
        ("openai", "https://api.openai.com/v1", "gpt-4o-mini"),
    ];
    for (name, url, model) in cases {
        let config = ModelConfig::resolve(&env_of(&[("ACTIONBOOK_LLM_PROVIDER", name)]), None)
            .expect("resolve");
        assert_eq!(config.provider.as_str(), name);
        assert_eq!(config.base_url, url);
        assert_eq!(config.model, model);
        connect(&config).expect("connect builds a client");
    }
}

#[test]
fn env_wins_over_file() {
    let file = LlmSection {
        provider: Some("anthropic".into()),
        base_url: Some("http://file.example".into()),
        model: Some("file-model".into()),
        api_key: Some("file-key".into()),
        timeout_ms: Some(9_000),
        max_retries: Some(1),
    };
    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "deepseek"),
        ("ACTIONBOOK_LLM_BASE_URL", "http://127.0.0.1:11434/v1/"),
        ("ACTIONBOOK_LLM_MODEL", "env-model"),
        ("ACTIONBOOK_LLM_API_KEY", "env-key"),
    ]);
    let config = ModelConfig::resolve(&env, Some(&file)).expect("resolve");
    assert_eq!(config.provider, Provider::DeepSeek);
    assert_eq!(config.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(config.model, "env-model");
    assert_eq!(key_of(&config), Some("env-key"));
    assert_eq!(config.timeout_ms, 9_000);
    assert_eq!(config.max_retries, 1);

    // The file fills what the environment leaves unset (empty counts as unset).
    let config = ModelConfig::resolve(&env_of(&[("ACTIONBOOK_LLM_MODEL", "")]), Some(&file))
        .expect("resolve");
    assert_eq!(config.provider, Provider::Anthropic);
    assert_eq!(config.base_url, "http://file.example");
    assert_eq!(config.model, "file-model");
    assert_eq!(key_of(&config), Some("file-key"));
}

#[test]
fn fallback_keys() {
    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "openai"),
        ("OPENAI_API_KEY", "sk-o"),
        ("ANTHROPIC_API_KEY", "sk-a"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("sk-o")
    );

    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "anthropic"),
        ("OPENAI_API_KEY", "sk-o"),
        ("ANTHROPIC_API_KEY", "sk-a"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("sk-a")
    );

    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "gemini"),
        ("GOOGLE_API_KEY", "g-google"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("g-google")
    );
    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "gemini"),
        ("GOOGLE_API_KEY", "g-google"),
        ("GEMINI_API_KEY", "g-gemini"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("g-gemini")
    );

    let env = env_of(&[
        ("ACTIONBOOK_LLM_PROVIDER", "deepseek"),
        ("DEEPSEEK_API_KEY", "ds"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("ds")
    );

    // The explicit variable beats the provider's customary one.
    let env = env_of(&[
        ("OPENAI_API_KEY", "sk-o"),
        ("ACTIONBOOK_LLM_API_KEY", "sk-explicit"),
    ]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, None).expect("resolve")),
        Some("sk-explicit")
    );

    // So does the file's key: the customary variable is only the last resort.
    let file = LlmSection {
        api_key: Some("file-key".into()),
        ..LlmSection::default()
    };
    let env = env_of(&[("OPENAI_API_KEY", "sk-o")]);
    assert_eq!(
        key_of(&ModelConfig::resolve(&env, Some(&file)).expect("resolve")),
        Some("file-key")
    );
}

#[test]
fn bad_values_are_not_configured() {
    let err = ModelConfig::resolve(&env_of(&[("ACTIONBOOK_LLM_PROVIDER", "mistral")]), None)
        .expect_err("bad provider");
    assert!(matches!(err, ModelError::NotConfigured { .. }));
    assert!(err.to_string().contains("mistral"));
    let err = ModelConfig::resolve(
        &env_of(&[("ACTIONBOOK_LLM_BASE_URL", "localhost:8080")]),
        None,
    )
    .expect_err("bad url");
    assert!(matches!(err, ModelError::NotConfigured { .. }), "{err:?}");
}

#[test]
fn secrets_are_never_printed() {
    let secret = Secret::new("sk-do-not-print");
    assert_eq!(format!("{secret:?}"), "***");
    assert_eq!(format!("{secret}"), "***");
    assert_eq!(secret.expose(), "sk-do-not-print");

    let env = env_of(&[("ACTIONBOOK_LLM_API_KEY", "sk-do-not-print")]);
    let config = ModelConfig::resolve(&env, None).expect("resolve");
    assert!(!format!("{config:?}").contains("sk-do-not-print"));
    let model = connect(&config).expect("connect");
    assert!(!format!("{model:?}").contains("sk-do-not-print"));

    let file = LlmSection {
        api_key: Some("sk-do-not-print".into()),
        ..LlmSection::default()
    };
    assert!(!format!("{file:?}").contains("sk-do-not-print"));
}

#[test]
fn llm_section_deserializes_from_a_table() {
    let value = serde_json::json!({"provider": "anthropic", "model": "claude-x"});
    let file: LlmSection = serde_json::from_value(value).expect("parse");
    let config = ModelConfig::resolve(&env_of(&[]), Some(&file)).expect("resolve");
    assert_eq!(config.provider, Provider::Anthropic);
    assert_eq!(config.model, "claude-x");
    assert_eq!(config.base_url, "https://api.anthropic.com");
}
