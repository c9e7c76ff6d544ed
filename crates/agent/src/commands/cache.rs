//! `actionbook ai-cache list` and `ai-cache clear`: what the action cache holds (so a user can
//! see what replays without the model) and forgetting it, all of it or one page's.

use actionbook::commands::extension::{Extension, ExtensionCall};
use actionbook::{CommandSpec, CommandTraits, Stage};
use envelope::{CommandName, Envelope};
use serde::{Deserialize, Serialize};

use super::{decode, success};
use crate::cache::{self, Cache, Entry, StepEntry};
use crate::error::Result;

/// `ai-cache list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CacheList {
    /// Only the entries of this page (its URL; query and fragment are left out as the cache does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL"))]
    pub page: Option<String>,
}

/// `ai-cache clear`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CacheClear {
    /// Only the entries of this page (its URL); without it, every entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL"))]
    pub page: Option<String>,
}

fn list_schema() -> schemars::Schema {
    schemars::schema_for!(CacheList)
}
fn clear_schema() -> schemars::Schema {
    schemars::schema_for!(CacheClear)
}

/// `ai-cache list`'s row.
pub static LIST: CommandSpec = CommandSpec {
    name: CommandName::AiCacheList,
    level: CommandName::AiCacheList.level(),
    stage: Stage::NonBrowser,
    traits: CommandTraits::READ_ONLY,
    about: "List the agent layer's cached actions: instruction, page, action and element (what perform replays with no model call)",
    example: "actionbook ai-cache list --page https://example.com/login",
    alias: None,
    schema: list_schema,
};

/// `ai-cache clear`'s row.
pub static CLEAR: CommandSpec = CommandSpec {
    name: CommandName::AiCacheClear,
    level: CommandName::AiCacheClear.level(),
    stage: Stage::NonBrowser,
    traits: CommandTraits::CHANGES.destructive().idempotent(),
    about: "Forget the agent layer's cached actions (all, or one page's with --page)",
    example: "actionbook ai-cache clear",
    alias: None,
    schema: clear_schema,
};

/// One entry as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedEntry {
    /// The instruction (with `<<name>>`s, never values).
    pub instruction: String,
    /// The page: its URL without query and fragment.
    pub page: String,
    /// The action (`click`).
    pub action: String,
    /// Its arguments as the model gave them.
    pub arguments: serde_json::Value,
    /// The element's role, when it acts on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The element's accessible name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's XPath in its document when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xpath: Option<String>,
    /// How often it replayed.
    pub hits: u64,
}

impl From<&Entry> for ListedEntry {
    fn from(e: &Entry) -> ListedEntry {
        let json = e.action.to_json();
        ListedEntry {
            instruction: e.instruction.clone(),
            page: e.page.clone(),
            action: e.action.name().to_string(),
            arguments: json["arguments"].clone(),
            role: e.role.clone(),
            name: e.name.clone(),
            xpath: e.xpath.clone(),
            hits: e.hits,
        }
    }
}

/// One cached `ai` step as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedStep {
    /// The task (with `<<name>>`s, never values).
    pub task: String,
    /// The step's number.
    pub step: u32,
    /// The page: its URL without query and fragment.
    pub page: String,
    /// Its actions (`fill textbox "From"`), in order.
    pub actions: Vec<String>,
    /// How often it replayed.
    pub hits: u64,
}

impl From<&StepEntry> for ListedStep {
    fn from(e: &StepEntry) -> ListedStep {
        let actions = e
            .actions
            .iter()
            .map(|a| target_words(a.action.name(), a.role.as_deref(), a.name.as_deref()))
            .collect();
        ListedStep {
            task: e.task.clone(),
            step: e.step,
            page: e.page.clone(),
            actions,
            hits: e.hits,
        }
    }
}

/// `click button "Sign in"`.
fn target_words(action: &str, role: Option<&str>, name: Option<&str>) -> String {
    let mut s = action.to_string();
    if let Some(role) = role {
        s.push_str(&format!(" {role}"));
    }
    if let Some(name) = name.filter(|n| !n.is_empty()) {
        s.push_str(&format!(" {name:?}"));
    }
    s
}

/// What `ai-cache list` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheListing {
    /// The cache file.
    pub path: String,
    /// Its entries (of `--page` when given), oldest first.
    pub entries: Vec<ListedEntry>,
    /// Its `ai` steps (of `--page` when given), oldest first.
    pub ai_steps: Vec<ListedStep>,
}

impl envelope::RenderText for CacheListing {
    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        body.count(self.entries.len(), "cached action", "cached actions");
        for e in &self.entries {
            let target = target_words(&e.action, e.role.as_deref(), e.name.as_deref());
            body.line(format!(
                "{:?} on {} -> {target} ({} replays)",
                e.instruction, e.page, e.hits
            ));
        }
        body.count(self.ai_steps.len(), "cached ai step", "cached ai steps");
        for s in &self.ai_steps {
            body.line(format!(
                "{:?} step {} on {} -> {} ({} replays)",
                s.task,
                s.step,
                s.page,
                s.actions.join(", "),
                s.hits
            ));
        }
        body.field("path", &self.path);
    }
}

/// What `ai-cache clear` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheCleared {
    /// The cache file.
    pub path: String,
    /// Entries removed (actions and `ai` steps).
    pub removed: usize,
    /// Entries left (of other pages).
    pub left: usize,
}

impl envelope::RenderText for CacheCleared {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        body.field("removed", self.removed);
        body.field("left", self.left);
    }
}

/// `ai-cache list` or `ai-cache clear`, as an extension of the engine's table.
#[derive(Debug)]
pub struct CacheCommand {
    /// Clear (else list).
    pub clear: bool,
}

impl CacheCommand {
    async fn list(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: CacheList = decode(CommandName::AiCacheList, call.args.clone())?;
        let path = cache::path(call.home.root());
        let cache = Cache::load(&path).await?;
        let page = r.page.as_deref().map(cache::page_key);
        let entries = cache
            .entries
            .iter()
            .filter(|e| page.as_ref().is_none_or(|p| &e.page == p))
            .map(ListedEntry::from)
            .collect();
        let ai_steps = cache
            .steps
            .iter()
            .filter(|e| page.as_ref().is_none_or(|p| &e.page == p))
            .map(ListedStep::from)
            .collect();
        let listing = CacheListing {
            path: path.display().to_string(),
            entries,
            ai_steps,
        };
        Ok(success(CommandName::AiCacheList, None, &listing, vec![]))
    }

    async fn clear(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: CacheClear = decode(CommandName::AiCacheClear, call.args.clone())?;
        let path = cache::path(call.home.root());
        let page = r.page.as_deref().map(cache::page_key);
        let (mut before, mut left) = (0, 0);
        Cache::update(&path, |cache| {
            before = cache.entries.len() + cache.steps.len();
            match &page {
                Some(page) => {
                    cache.entries.retain(|e| &e.page != page);
                    cache.steps.retain(|e| &e.page != page);
                }
                None => {
                    cache.entries.clear();
                    cache.steps.clear();
                }
            }
            left = cache.entries.len() + cache.steps.len();
            left != before
        })
        .await?;
        let cleared = CacheCleared {
            path: path.display().to_string(),
            removed: before - left,
            left,
        };
        Ok(success(CommandName::AiCacheClear, None, &cleared, vec![]))
    }
}

#[async_trait::async_trait]
impl Extension for CacheCommand {
    fn spec(&self) -> &'static CommandSpec {
        if self.clear { &CLEAR } else { &LIST }
    }

    #[cfg(feature = "cli")]
    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        use clap::Args as _;
        if self.clear {
            CacheClear::augment_args(cmd)
        } else {
            CacheList::augment_args(cmd)
        }
    }

    #[cfg(feature = "cli")]
    fn args_from_matches(
        &self,
        matches: &mut clap::ArgMatches,
    ) -> std::result::Result<serde_json::Value, clap::Error> {
        use clap::FromArgMatches as _;
        let json = if self.clear {
            serde_json::to_value(CacheClear::from_arg_matches_mut(matches)?)
        } else {
            serde_json::to_value(CacheList::from_arg_matches_mut(matches)?)
        };
        json.map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, e.to_string()))
    }

    async fn run(&self, call: ExtensionCall<'_>) -> Envelope {
        let name = self.spec().name;
        let done = if self.clear {
            self.clear(&call).await
        } else {
            self.list(&call).await
        };
        done.unwrap_or_else(|e| Envelope::failure(name, None, e.to_info()))
    }
}
