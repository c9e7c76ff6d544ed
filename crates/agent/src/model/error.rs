//! The one error type of the model layer.

/// What went wrong while configuring or calling a model; messages never include the API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The provider rejected the API key (HTTP 401 or 403).
    #[error(
        "the model provider rejected the API key (HTTP {status}); check the configured API key"
    )]
    BadKey {
        /// HTTP status the provider answered.
        status: u16,
    },
    /// The provider does not know the requested model.
    #[error("the model provider does not know the model '{model}'")]
    UnknownModel {
        /// Model id that was requested.
        model: String,
    },
    /// The provider refused the request (HTTP 4xx, content policy, or an explicit refusal).
    #[error("the model provider refused the request (HTTP {status}): {message}")]
    Refused {
        /// HTTP status the provider answered (200 for a refusal inside a successful answer).
        status: u16,
        /// The provider's own explanation.
        message: String,
    },
    /// Still rate limited (HTTP 429) after every retry.
    #[error("rate limited by the model provider after {attempts} attempts{}", retry_hint(*retry_after_ms))]
    RateLimited {
        /// Requests sent, the first one included.
        attempts: u32,
        /// Wait the provider asked for on its last answer, if it said.
        retry_after_ms: Option<u64>,
    },
    /// The provider kept failing with a server error (HTTP 5xx) after every retry.
    #[error("the model provider failed with HTTP {status} after {attempts} attempts")]
    Server {
        /// Last HTTP status seen.
        status: u16,
        /// Requests sent, the first one included.
        attempts: u32,
    },
    /// No complete answer arrived within the per-request timeout.
    #[error("the model provider did not answer within {ms} ms")]
    Timeout {
        /// The timeout that elapsed.
        ms: u64,
    },
    /// The request could not be delivered (DNS, connection refused, TLS, broken body).
    #[error("could not reach the model provider: {message}")]
    Transport {
        /// What the HTTP stack reported.
        message: String,
    },
    /// The provider answered, but not in a shape we understand (or JSON mode got no JSON).
    #[error("the model provider's answer could not be used: {message}")]
    BadAnswer {
        /// What was wrong with the answer.
        message: String,
    },
    /// The configuration is missing or invalid.
    #[error("the model is not configured: {what}")]
    NotConfigured {
        /// What is missing or wrong.
        what: String,
    },
}

fn retry_hint(retry_after_ms: Option<u64>) -> String {
    match retry_after_ms {
        Some(ms) => format!(" (the provider asked to wait {ms} ms)"),
        None => String::new(),
    }
}

impl ModelError {
    /// Whether the same request may succeed if sent again later.
    pub fn retryable(&self) -> bool {
        match self {
            ModelError::RateLimited { .. }
            | ModelError::Server { .. }
            | ModelError::Timeout { .. }
            | ModelError::Transport { .. } => true,
            ModelError::BadKey { .. }
            | ModelError::UnknownModel { .. }
            | ModelError::Refused { .. }
            | ModelError::BadAnswer { .. }
            | ModelError::NotConfigured { .. } => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_only_for_transient_failures() {
        assert!(
            ModelError::RateLimited {
                attempts: 4,
                retry_after_ms: None
            }
            .retryable()
        );
        assert!(ModelError::Timeout { ms: 1 }.retryable());
        assert!(!ModelError::BadKey { status: 401 }.retryable());
        assert!(
            !ModelError::BadAnswer {
                message: String::new()
            }
            .retryable()
        );
    }

    #[test]
    fn rate_limit_message_mentions_wait() {
        let e = ModelError::RateLimited {
            attempts: 2,
            retry_after_ms: Some(1500),
        };
        assert!(e.to_string().contains("1500 ms"));
    }
}
