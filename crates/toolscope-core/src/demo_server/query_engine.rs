//! A tiny in-memory "database" for `query_db`: enough SQL to show rows flowing from one tool's
//! structured output into another tool's arguments.
//!
//! Grammar: `SELECT cols|* FROM table [WHERE col (=|!=|<|>|<=|>=) value] [ORDER BY col [ASC|DESC]] [LIMIT n]`.

use serde_json::{Map, Value, json};

fn table(name: &str) -> Option<Vec<Map<String, Value>>> {
    let rows = match name {
        "users" => json!([
            {"id": 1, "name": "Ada", "city": "London", "age": 36},
            {"id": 2, "name": "Grace", "city": "New York", "age": 45},
            {"id": 3, "name": "李雷", "city": "北京", "age": 28},
            {"id": 4, "name": "Linus", "city": "Helsinki", "age": 21},
            {"id": 5, "name": "韩梅梅", "city": "上海", "age": 27}
        ]),
        "orders" => json!([
            {"id": 100, "user_id": 1, "item": "notebook", "total": 12.5},
            {"id": 101, "user_id": 3, "item": "茶叶", "total": 88.0},
            {"id": 102, "user_id": 2, "item": "compiler", "total": 240.0},
            {"id": 103, "user_id": 1, "item": "pencil", "total": 1.25}
        ]),
        _ => return None,
    };
    let Value::Array(rows) = rows else {
        return None;
    };
    Some(
        rows.into_iter()
            .filter_map(|row| match row {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
    )
}

/// Runs one query. The error text says what was wrong and what is supported.
/// What is wrong with a query, in words for the model that wrote it (the `query_db` tool's
/// error text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(String);

/// The tool answers with it as its error text.
fn said(problem: String) -> QueryError {
    QueryError(problem)
}

pub fn run(sql: &str) -> Result<Vec<Map<String, Value>>, QueryError> {
    let tokens = tokenize(sql)?;
    let mut cursor = Tokens { tokens, at: 0 };
    cursor.keyword("SELECT")?;
    let mut columns = Vec::new();
    loop {
        columns.push(cursor.word("a column name or *")?);
        if !cursor.eat(",") {
            break;
        }
    }
    cursor.keyword("FROM")?;
    let table_name = cursor.word("a table name")?;
    let mut rows = table(&table_name.to_lowercase()).ok_or_else(|| {
        said(format!(
            "no table named {table_name:?}: the tables are users and orders"
        ))
    })?;
    if cursor.eat_keyword("WHERE") {
        let column = cursor.word("a column name")?;
        let op = cursor.word("a comparison (=, !=, <, >, <=, >=)")?;
        let value = literal(&cursor.word("a value")?);
        let keep = |row: &Map<String, Value>| compare(row.get(&column), &op, &value);
        if !["=", "!=", "<", ">", "<=", ">="].contains(&op.as_str()) {
            return Err(said(format!(
                "unknown comparison {op:?}: use =, !=, <, >, <= or >="
            )));
        }
        rows.retain(keep);
    }
    if cursor.eat_keyword("ORDER") {
        cursor.keyword("BY")?;
        let column = cursor.word("a column name")?;
        let descending = cursor.eat_keyword("DESC");
        if !descending {
            cursor.eat_keyword("ASC");
        }
        rows.sort_by(|a, b| order(a.get(&column), b.get(&column)));
        if descending {
            rows.reverse();
        }
    }
    if cursor.eat_keyword("LIMIT") {
        let count = cursor.word("a row count")?;
        let count: usize = count
            .parse()
            .map_err(|_| said(format!("LIMIT needs a number, not {count:?}")))?;
        rows.truncate(count);
    }
    if let Some(extra) = cursor.tokens.get(cursor.at) {
        return Err(said(format!("unexpected {extra:?} after the query")));
    }
    if columns != ["*"] {
        for row in &mut rows {
            let mut picked = Map::new();
            for column in &columns {
                let value = row
                    .get(column)
                    .cloned()
                    .ok_or_else(|| said(format!("no column named {column:?} in {table_name}")))?;
                picked.insert(column.clone(), value);
            }
            *row = picked;
        }
    }
    Ok(rows)
}

struct Tokens {
    tokens: Vec<String>,
    at: usize,
}

impl Tokens {
    fn word(&mut self, expected: &str) -> Result<String, QueryError> {
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or_else(|| said(format!("the query ends where {expected} was expected")))?;
        self.at += 1;
        Ok(token)
    }

    fn keyword(&mut self, keyword: &str) -> Result<(), QueryError> {
        let token = self.word(keyword)?;
        if token.eq_ignore_ascii_case(keyword) {
            Ok(())
        } else {
            Err(said(format!("expected {keyword} but found {token:?}")))
        }
    }

    fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = self
            .tokens
            .get(self.at)
            .is_some_and(|token| token.eq_ignore_ascii_case(keyword));
        self.at += usize::from(found);
        found
    }

    fn eat(&mut self, symbol: &str) -> bool {
        self.eat_keyword(symbol)
    }
}

fn tokenize(sql: &str) -> Result<Vec<String>, QueryError> {
    let mut tokens = Vec::new();
    let mut chars = sql.trim().trim_end_matches(';').chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '\'' {
            chars.next();
            let mut text = String::from("'");
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some(other) => text.push(other),
                    None => return Err(said("a quoted value is not closed: add a '".to_owned())),
                }
            }
            tokens.push(text);
        } else if "=<>!".contains(c) {
            let mut op = String::new();
            while let Some(&next) = chars.peek() {
                if !"=<>!".contains(next) {
                    break;
                }
                op.push(next);
                chars.next();
            }
            tokens.push(op);
        } else if c == ',' || c == '*' {
            tokens.push(c.to_string());
            chars.next();
        } else {
            let mut word = String::new();
            while let Some(&next) = chars.peek() {
                if next.is_whitespace() || ",*=<>!'".contains(next) {
                    break;
                }
                word.push(next);
                chars.next();
            }
            tokens.push(word);
        }
    }
    Ok(tokens)
}

fn literal(token: &str) -> Value {
    if let Some(text) = token.strip_prefix('\'') {
        return Value::String(text.to_owned());
    }
    serde_json::from_str(token).unwrap_or_else(|_| Value::String(token.to_owned()))
}

fn order(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(Value::Number(a)), Some(Value::Number(b))) => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(std::cmp::Ordering::Equal),
        (Some(Value::String(a)), Some(Value::String(b))) => a.cmp(b),
        _ => std::cmp::Ordering::Equal,
    }
}

fn compare(actual: Option<&Value>, op: &str, expected: &Value) -> bool {
    let ordering = order(actual, Some(expected));
    let equal = actual == Some(expected)
        || matches!((actual, expected), (Some(Value::Number(a)), Value::Number(b)) if a.as_f64() == b.as_f64());
    match op {
        "=" => equal,
        "!=" => !equal,
        "<" => !equal && ordering.is_lt(),
        ">" => !equal && ordering.is_gt(),
        "<=" => equal || ordering.is_lt(),
        ">=" => equal || ordering.is_gt(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_where_order_limit() {
        let rows =
            run("SELECT name, age FROM users WHERE age > 25 ORDER BY age DESC LIMIT 2").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["name"], "Grace");
        assert_eq!(rows[1]["name"], "Ada");
        assert_eq!(rows[0].len(), 2);
    }

    #[test]
    fn strings_and_unicode() {
        let rows = run("select * from users where city = '北京'").unwrap();
        assert_eq!(rows[0]["name"], "李雷");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let said = |sql: &str| run(sql).unwrap_err().to_string();
        assert!(said("SELECT * FROM nope").contains("users and orders"));
        assert!(said("DELETE FROM users").contains("SELECT"));
        assert!(said("SELECT x FROM users").contains("no column"));
        assert!(said("SELECT * FROM users WHERE name = 'Ada").contains("not closed"));
    }
}
