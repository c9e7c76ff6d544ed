//! Scenario 8: coordinates inside OOPIFs (with borders and padding, one and two levels deep)
//! map to the top-level point where the iframe is hit and where a click lands on the button.

use crate::support::*;
use cdp_protocol::{FrameId, Session};
use frame_graph::{FrameGraph, Rect};
use serde_json::json;

/// The content-box centre of `selector` in `frame`, in that frame's session coordinates.
async fn local_center(graph: &FrameGraph, frame: &FrameId, selector: &str) -> (f64, f64, Rect) {
    let session = graph.session_for(frame).expect("session");
    let ctx = graph
        .execution_context_for(frame, T)
        .await
        .expect("context");
    let r = session
        .call("Runtime.evaluate", json!({"expression": format!("document.querySelector({selector:?})"), "contextId": ctx.get()}))
        .await
        .expect("evaluate");
    let object_id = r["result"]["objectId"]
        .as_str()
        .expect("element")
        .to_owned();
    let b = session
        .call("DOM.getBoxModel", json!({"objectId": object_id}))
        .await
        .expect("box model");
    let q: Vec<f64> = b["model"]["content"]
        .as_array()
        .expect("quad")
        .iter()
        .filter_map(|v| v.as_f64())
        .collect();
    let rect = Rect::new(q[0], q[1], q[2] - q[0], q[5] - q[1]);
    let (cx, cy) = rect.center();
    (cx, cy, rect)
}

async fn click(page: &Session, x: f64, y: f64) {
    for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
        page.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .await
        .expect("dispatchMouseEvent");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oopif_points_map_to_page_points_where_clicks_land() {
    let server = Server::start().await;
    let outer = server.cross("/outer.html");
    let inner = server.url("/inner.html");
    server.route(
        "/",
        &format!(r#"<body style="margin:0"><div style="height:50px"></div><iframe id="x" src="{outer}" style="position:absolute;left:40px;top:60px;width:500px;height:400px;border:7px solid black;padding:3px"></iframe></body>"#),
    );
    let button = r#"<button id="b" style="margin-left:30px;width:100px;height:40px;border:0" onclick="window.clicks=(window.clicks||0)+1">go</button>"#;
    server.route(
        "/outer.html",
        &format!(r#"<body style="margin:0"><div style="height:20px"></div>{button}<iframe id="y" src="{inner}" style="position:absolute;left:150px;top:100px;width:250px;height:200px;border:5px solid red;padding:4px"></iframe></body>"#),
    );
    server.route(
        "/inner.html",
        &format!(r#"<body style="margin:0"><div style="height:10px"></div>{button}</body>"#),
    );
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    let outer_f = by_url(&graph, "/outer.html").expect("outer OOPIF");
    let inner_f = by_url(&graph, "/inner.html").expect("inner OOPIF");
    assert!(outer_f.is_out_of_process && inner_f.is_out_of_process);
    assert_eq!(inner_f.parent_frame_id.as_ref(), Some(&outer_f.frame_id));

    // One level: iframe at (40, 60) + border 7 + padding 3; button at (30, 20) in its frame.
    let (cx, cy, rect) = local_center(&graph, &outer_f.frame_id, "#b").await;
    assert_eq!((cx, cy), (80.0, 40.0));
    let (x, y) = graph
        .to_page_point(&outer_f.frame_id, cx, cy)
        .await
        .expect("map");
    assert_eq!((x, y), (130.0, 110.0));
    let mapped = graph
        .to_page_rect(&outer_f.frame_id, rect)
        .await
        .expect("map rect");
    assert_eq!(
        mapped,
        Rect::new(rect.x + 50.0, rect.y + 70.0, rect.width, rect.height)
    );
    let hit = eval(&page, &format!("document.elementFromPoint({x}, {y}).id")).await;
    assert_eq!(hit, "x");
    click(&page, x, y).await;
    assert_eq!(
        eval_in(&graph, &outer_f.frame_id, "window.clicks || 0").await,
        1
    );

    // Two levels: + the inner iframe at (150, 100) + border 5 + padding 4 inside the outer one.
    let (cx, cy, _) = local_center(&graph, &inner_f.frame_id, "#b").await;
    let (x, y) = graph
        .to_page_point(&inner_f.frame_id, cx, cy)
        .await
        .expect("map");
    assert_eq!((x, y), (50.0 + 159.0 + 80.0, 70.0 + 109.0 + 30.0));
    let hit = eval(&page, &format!("document.elementFromPoint({x}, {y}).id")).await;
    assert_eq!(hit, "x");
    click(&page, x, y).await;
    assert_eq!(
        eval_in(&graph, &inner_f.frame_id, "window.clicks || 0").await,
        1
    );
    assert_eq!(
        eval_in(&graph, &outer_f.frame_id, "window.clicks || 0").await,
        1
    );

    // Main-frame points are unchanged; an unknown frame is an error.
    let main = graph.main_frame().frame_id;
    assert_eq!(
        graph.to_page_point(&main, 3.0, 4.0).await.expect("main"),
        (3.0, 4.0)
    );
    assert!(
        graph
            .to_page_point(&FrameId::from("nope"), 0.0, 0.0)
            .await
            .is_err()
    );
    graph.shutdown();
    browser.close().await;
}
